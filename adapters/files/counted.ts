import { createHash } from 'node:crypto';
import { FileTooLarge, type StoredBytes } from '../../engine/files/store.ts';

/**
 * The bytes of `body` as they pass, counted and hashed: throws FileTooLarge at the chunk that
 * crosses `maxBytes`, before it is passed on. `done()` is the size and sha256 once the body ended.
 */
export function counted(body: AsyncIterable<Uint8Array>, maxBytes: number): { chunks: AsyncIterable<Uint8Array>; done(): StoredBytes } {
  const hash = createHash('sha256');
  let size = 0;
  let digest: string | undefined;
  async function* chunks() {
    for await (const chunk of body) {
      size += chunk.byteLength;
      if (size > maxBytes) throw new FileTooLarge(maxBytes);
      hash.update(chunk);
      yield chunk;
    }
    digest = hash.digest('hex');
  }
  return {
    chunks: chunks(),
    done() {
      if (digest === undefined) throw new Error('the body has not ended');
      return { size, sha256: digest };
    },
  };
}

/** A tenant's key as one safe path segment or key prefix: itself when plain, else `x` and its UTF-8 hex. */
export const tenantSegment = (tenant: string): string =>
  /^[A-Za-z0-9_-]{1,100}$/.test(tenant) ? tenant : `x${Buffer.from(tenant, 'utf8').toString('hex')}`;

/** tenantSegment read back. */
export const tenantOfSegment = (segment: string): string =>
  /^x(?:[0-9a-f]{2})+$/.test(segment) && !/^[A-Za-z0-9_-]{1,100}$/.test(Buffer.from(segment.slice(1), 'hex').toString('utf8'))
    ? Buffer.from(segment.slice(1), 'hex').toString('utf8')
    : segment;
