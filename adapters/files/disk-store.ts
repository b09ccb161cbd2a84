import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SHA256_HEX, type ByteRange, type FileStore, type StoredObject } from '../../engine/files/store.ts';
import { counted, tenantOfSegment, tenantSegment } from './counted.ts';

/** Bytes a read or write keeps in flight: fewer, larger disk operations than the 64 KiB default, still bounded. */
const BUFFERED = 1024 * 1024;

/**
 * Files on the local disk under `root` (DATA_DIR/files): `{tenant}/{sha256[0..2]}/{sha256}`,
 * written to `{tenant}/tmp/` first, fsynced, then renamed into place, so a name always holds
 * whole bytes. Temporary files a crash left are listed for the sweep too.
 */
export function diskFileStore(root: string): FileStore {
  const dirOf = (tenant: string) => join(root, tenantSegment(tenant));
  const pathOf = (tenant: string, sha256: string) => {
    if (!SHA256_HEX.test(sha256)) throw new Error(`not a sha256: ${sha256}`);
    return join(dirOf(tenant), sha256.slice(0, 2), sha256);
  };
  return {
    async put(tenant, body, maxBytes) {
      const tmpDir = join(dirOf(tenant), 'tmp');
      await mkdir(tmpDir, { recursive: true });
      const tmp = join(tmpDir, randomUUID());
      const bytes = counted(body, maxBytes);
      try {
        await pipeline(Readable.from(bytes.chunks), createWriteStream(tmp, { flags: 'wx', highWaterMark: BUFFERED }));
        await fsync(tmp);
        const { sha256 } = bytes.done();
        const final = pathOf(tenant, sha256);
        await mkdir(join(final, '..'), { recursive: true });
        await rename(tmp, final);
        await fsync(join(final, '..'));
        return bytes.done();
      } catch (e) {
        await rm(tmp, { force: true });
        throw e;
      }
    },
    async get(tenant, sha256, range?: ByteRange) {
      const path = pathOf(tenant, sha256);
      const exists = await stat(path).catch(() => undefined);
      if (!exists) return undefined;
      const stream = createReadStream(path, { highWaterMark: BUFFERED, ...(range ? { start: range.start, end: range.end } : {}) });
      return Readable.toWeb(stream) as ReadableStream<Uint8Array>;
    },
    async delete(object) {
      const now = await stat(join(root, object.key)).catch(() => undefined);
      if (now && now.mtimeMs === object.modified) await rm(join(root, object.key), { force: true });
    },
    async *list(): AsyncIterable<StoredObject> {
      for (const segment of await readdir(root).catch(() => [] as string[])) {
        const tenant = tenantOfSegment(segment);
        for (const sub of await readdir(join(root, segment)).catch(() => [] as string[])) {
          for (const name of await readdir(join(root, segment, sub)).catch(() => [] as string[])) {
            const s = await stat(join(root, segment, sub, name)).catch(() => undefined);
            if (!s?.isFile()) continue;
            if (sub !== 'tmp' && !SHA256_HEX.test(name)) continue;
            const key = join(segment, sub, name);
            yield { tenant, sha256: sub === 'tmp' ? undefined : name, size: s.size, modified: s.mtimeMs, key };
          }
        }
      }
    },
  };
}

async function fsync(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
