import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diskFileStore } from '../../adapters/files/disk-store.ts';
import { s3FileStore } from '../../adapters/files/s3-store.ts';
import { FileTooLarge, type FileStore, type StoredObject } from '../../engine/files/store.ts';
import { startS3 } from '../support/s3.ts';

async function* chunksOf(bytes: Uint8Array, size = 64 * 1024) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}
const bytesOf = async (stream: ReadableStream<Uint8Array> | undefined) => Buffer.from(await new Response(stream).arrayBuffer());
const listed = async (store: FileStore) => {
  const all: StoredObject[] = [];
  for await (const o of store.list()) all.push(o);
  return all;
};
const random = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7919 + (i >> 8)) & 255));

const STORES: { name: string; open(): Promise<{ store: FileStore; close(): Promise<void> }> }[] = [
  {
    name: 'disk',
    async open() {
      const root = mkdtempSync(join(tmpdir(), 'mrs-files-'));
      return { store: diskFileStore(root), close: async () => rmSync(root, { recursive: true, force: true }) };
    },
  },
  {
    name: 's3',
    async open() {
      const s3 = await startS3();
      const store = s3FileStore(s3.options);
      return {
        store,
        async close() {
          store.client.destroy();
          await s3.stop();
        },
      };
    },
  },
];

describe.each(STORES)('$name file store', ({ open }) => {
  let store: FileStore;
  let close: () => Promise<void>;
  beforeAll(async () => ({ store, close } = await open()));
  afterAll(() => close());

  it('keeps the bytes by tenant and sha256, whole and by range', async () => {
    const bytes = random(300_000);
    const stored = await store.put('acme', chunksOf(bytes), 1_000_000);
    expect(stored).toEqual({ size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    expect((await bytesOf(await store.get('acme', stored.sha256))).equals(bytes)).toBe(true);
    const part = await bytesOf(await store.get('acme', stored.sha256, { start: 1000, end: 1999 }));
    expect(part.equals(bytes.subarray(1000, 2000))).toBe(true);
  });

  it("never gives a tenant another's bytes, even with the same sha256", async () => {
    const stored = await store.put('acme', chunksOf(Buffer.from('pump photo')), 100);
    expect(await store.get('globex', stored.sha256)).toBeUndefined();
    expect(await store.get('acme', 'a'.repeat(64))).toBeUndefined();
  });

  it('refuses past the limit and keeps nothing of it', async () => {
    const before = await listed(store);
    await expect(store.put('acme', chunksOf(random(200_000)), 100_000)).rejects.toBeInstanceOf(FileTooLarge);
    expect((await listed(store)).length).toBe(before.length);
  });

  it('lists every object with its tenant, sha256 and age, and deletes one', async () => {
    const stored = await store.put('tenant with spaces', chunksOf(Buffer.from('')), 10);
    const all = await listed(store);
    const mine = all.find((o) => o.tenant === 'tenant with spaces');
    expect(mine).toMatchObject({ sha256: stored.sha256, size: 0 });
    expect(Math.abs(mine!.modified - Date.now())).toBeLessThan(60_000);
    expect(all.filter((o) => o.sha256 === undefined)).toEqual([]);
    await store.delete(mine!);
    expect(await store.get('tenant with spaces', stored.sha256)).toBeUndefined();
  });
});

describe('disk file store', () => {
  it('leaves no temporary file behind an upload that fails midway', async () => {
    const root = mkdtempSync(join(tmpdir(), 'mrs-files-'));
    async function* failing() {
      yield Buffer.from('start');
      throw new Error('the client went away');
    }
    await expect(diskFileStore(root).put('acme', failing(), 100)).rejects.toThrow('went away');
    expect(readdirSync(join(root, 'acme', 'tmp'))).toEqual([]);
    rmSync(root, { recursive: true, force: true });
  });
});

describe('S3 file store', () => {
  it('fails a put, a get and a listing when the store accepts the connection and never answers, instead of waiting forever', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket.on('error', () => {})));
    const port = await new Promise<number>((r) => silent.listen(0, '127.0.0.1', () => r((silent.address() as { port: number }).port)));
    const store = s3FileStore({
      bucket: 'mrs-files',
      idleTimeoutMs: 300,
      client: {
        endpoint: `http://127.0.0.1:${port}`,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'k', secretAccessKey: 's' },
        maxAttempts: 1,
      },
    });
    try {
      await expect(store.put('acme', chunksOf(random(1000)), 1_000_000)).rejects.toThrow(/timed out/);
      await expect(store.get('acme', 'a'.repeat(64))).rejects.toThrow(/timed out/);
      await expect(listed(store)).rejects.toThrow(/timed out/);
    } finally {
      store.client.destroy();
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });
});
