import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { SHA256_HEX, type FileStore, type StoredObject } from '../../engine/files/store.ts';
import { counted, tenantOfSegment, tenantSegment } from './counted.ts';

export interface S3StoreOptions {
  readonly bucket: string;
  /** Put before every key (default none), e.g. `files/`. */
  readonly prefix?: string;
  /** The client's settings: endpoint, region, credentials, forcePathStyle. */
  readonly client: S3ClientConfig;
  /** A request to the store that moves no byte for this long fails (default 60 s; the SDK's own default waits forever). */
  readonly idleTimeoutMs?: number;
}

const IDLE_TIMEOUT_MS = 60_000;
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Files in any S3-compatible bucket: `{prefix}{tenant}/{sha256}`. The bytes are streamed to
 * `{prefix}{tenant}/tmp/{uuid}` (a multipart upload: never held whole), hashed as they pass, then
 * copied to their name and the temporary object removed; an object appears whole or not at all,
 * so a name always holds whole bytes, and a crash leaves at most a temporary one for the sweep.
 */
export function s3FileStore(options: S3StoreOptions): FileStore & { readonly client: S3Client } {
  // A store that stops answering fails the upload or download holding it, and so lets a shutdown finish.
  const idle = options.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  const client = new S3Client({
    requestHandler: { connectionTimeout: Math.min(CONNECT_TIMEOUT_MS, idle), socketTimeout: idle },
    ...options.client,
  });
  const Bucket = options.bucket;
  const prefix = options.prefix ?? '';
  const keyOf = (tenant: string, sha256: string) => {
    if (!SHA256_HEX.test(sha256)) throw new Error(`not a sha256: ${sha256}`);
    return `${prefix}${tenantSegment(tenant)}/${sha256}`;
  };
  const remove = (Key: string) => client.send(new DeleteObjectCommand({ Bucket, Key }));
  return {
    client,
    async put(tenant, body, maxBytes) {
      const tmp = `${prefix}${tenantSegment(tenant)}/tmp/${randomUUID()}`;
      const bytes = counted(body, maxBytes);
      const upload = new Upload({ client, params: { Bucket, Key: tmp, Body: Readable.from(bytes.chunks) } });
      try {
        await upload.done();
        const stored = bytes.done();
        await client.send(new CopyObjectCommand({ Bucket, Key: keyOf(tenant, stored.sha256), CopySource: `${Bucket}/${tmp}` }));
        return stored;
      } catch (e) {
        await upload.abort().catch(() => {});
        throw e;
      } finally {
        await remove(tmp).catch(() => {});
      }
    },
    async get(tenant, sha256, range) {
      try {
        const answer = await client.send(
          new GetObjectCommand({ Bucket, Key: keyOf(tenant, sha256), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
        );
        return answer.Body?.transformToWebStream() as ReadableStream<Uint8Array> | undefined;
      } catch (e) {
        if (e instanceof NoSuchKey || (e as { name?: string }).name === 'NoSuchKey') return undefined;
        throw e;
      }
    },
    async delete(object) {
      const now = await client.send(new HeadObjectCommand({ Bucket, Key: object.key })).catch(() => undefined);
      // HEAD dates are whole seconds where some stores' listings carry milliseconds.
      const second = (ms: number) => Math.floor(ms / 1000);
      if (now && second(now.LastModified?.getTime() ?? 0) === second(object.modified)) await remove(object.key);
    },
    async *list(): AsyncIterable<StoredObject> {
      let ContinuationToken: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix: prefix || undefined, ContinuationToken }));
        for (const o of page.Contents ?? []) {
          const parts = (o.Key ?? '').slice(prefix.length).split('/');
          const temporary = parts.length === 3 && parts[1] === 'tmp';
          if (!temporary && (parts.length !== 2 || !SHA256_HEX.test(parts[1]!))) continue;
          yield {
            tenant: tenantOfSegment(parts[0]!),
            sha256: temporary ? undefined : parts[1],
            size: o.Size ?? 0,
            modified: o.LastModified?.getTime() ?? 0,
            key: o.Key!,
          };
        }
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
    },
  };
}
