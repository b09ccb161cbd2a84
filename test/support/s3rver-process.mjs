// s3rver in its own process: a client killed mid-upload makes s3rver throw on a temporary file
// that is already gone, and that error must not fail the test process around it.
import { createRequire } from 'node:module';

const [port, directory, bucket] = process.argv.slice(2);
const S3rver = createRequire(import.meta.url)('s3rver');
process.on('uncaughtException', (e) => console.error('s3rver:', e.message));
process.on('unhandledRejection', (e) => console.error('s3rver:', e instanceof Error ? e.message : e));
const server = new S3rver({
  address: '127.0.0.1',
  port: Number(port),
  silent: true,
  directory,
  configureBuckets: [{ name: bucket, configs: [] }],
});
await server.run();
process.stdout.write('ready\n');
