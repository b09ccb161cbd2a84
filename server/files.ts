import { join } from 'node:path';
import { diskFileStore } from '../adapters/files/disk-store.ts';
import { nodeFiles } from '../adapters/files/node-files.ts';
import type { FilesOptions } from '../engine/files/options.ts';
import type { FileStore } from '../engine/files/store.ts';
import type { Registry } from 'prom-client';
import type { Config } from './config.ts';
import { fileMetrics } from './files-metrics.ts';

/** The store FILE_STORE names: DATA_DIR/files, or the S3 bucket (its SDK loaded only then). */
export async function fileStoreOf(config: Config): Promise<FileStore> {
  if (config.fileStore === 'disk' || !config.s3) return diskFileStore(join(config.dataDir, 'files'));
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { s3FileStore } = await import('../adapters/files/s3-store.ts');
  const s3 = config.s3;
  return s3FileStore({
    bucket: s3.bucket,
    client: {
      region: s3.region,
      forcePathStyle: s3.forcePathStyle,
      ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
      ...(s3.accessKeyId && s3.secretAccessKey
        ? { credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } }
        : {}),
    },
  });
}

/** The engine's `files` for the service, its store counted for /metrics. */
export async function serviceFiles(config: Config): Promise<{ files: FilesOptions; register(registry: Registry): void }> {
  const metered = fileMetrics(await fileStoreOf(config));
  return { files: nodeFiles(metered.store, { maxBytes: config.fileMaxBytes }), register: metered.register };
}
