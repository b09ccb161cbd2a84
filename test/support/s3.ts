import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3StoreOptions } from '../../adapters/files/s3-store.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** A free port on 127.0.0.1. */
export const freePort = (): Promise<number> =>
  new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });

/** An S3-compatible server (s3rver) on a free local port with one bucket, and the store options to reach it. */
export async function startS3(
  bucket = 'mrs-files',
): Promise<{ options: S3StoreOptions; endpoint: string; directory: string; stop(): Promise<void> }> {
  // s3rver ships no types: its constructor, run and close are all a test uses.
  const S3rver = createRequire(import.meta.url)('s3rver') as new (o: object) => S3rverInstance;
  const directory = mkdtempSync(join(tmpdir(), 'mrs-s3-'));
  const port = await freePort();
  const server = new S3rver({ address: '127.0.0.1', port, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    directory,
    options: {
      bucket,
      client: {
        endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      },
    },
    async stop() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

interface S3rverInstance {
  run(): Promise<unknown>;
  close(): Promise<unknown>;
}
