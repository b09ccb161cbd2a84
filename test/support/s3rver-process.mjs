// s3rver in its own process: a client killed mid-upload makes s3rver throw on a temporary file
// that is already gone, and that error must not fail the test process around it.
import { unlink } from 'node:fs/promises';
import { createRequire } from 'node:module';

const [port, directory, bucket] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const S3rver = require('s3rver');
const FilesystemStore = require('s3rver/lib/stores/filesystem');

// Deletes leave folders: s3rver's removal of an emptied one races a PUT into it, which then never answers.
FilesystemStore.prototype.deleteObject = async function (bucket, key) {
  const files = ['object', 'object.md5', 'metadata.json'].map((resource) => this.getResourcePath(bucket, key, resource));
  await Promise.all(files.map((file) => unlink(file).catch((e) => (e.code === 'ENOENT' ? undefined : Promise.reject(e)))));
};
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
