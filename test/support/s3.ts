import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3StoreOptions } from '../../adapters/files/s3-store.ts';
import { terminate, within } from './hang.ts';

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
  const directory = mkdtempSync(join(tmpdir(), 'mrs-s3-'));
  const port = await freePort();
  const script = join(import.meta.dirname, 's3rver-process.mjs');
  const child = spawn(process.execPath, [script, String(port), directory, bucket], { stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = new Promise<void>((ready, fail) => {
    child.once('exit', (code) => fail(new Error(`s3rver exited with ${code}`)));
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && ready());
  });
  try {
    await within(`s3rver ${child.pid} starting on port ${port}`, 30_000, {}, () => ready);
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  child.removeAllListeners('exit');
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
      await terminate(child, `s3rver ${child.pid}`, {}, 10_000).finally(() => rmSync(directory, { recursive: true, force: true }));
    },
  };
}
