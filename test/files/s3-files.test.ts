import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeWorkOrder } from '../support/fixtures.ts';
import { useCli } from '../support/cli.ts';
import { form, PNG, send, upload } from '../support/files.ts';
import { describeEachDatabase, M } from '../support/harness.ts';
import { startS3 } from '../support/s3.ts';

// Filled in once the S3-compatible server listens, before each database's service starts.
const env: Record<string, string> = {
  FILE_STORE: 's3',
  S3_BUCKET: 'mrs-files',
  S3_REGION: 'us-east-1',
  S3_FORCE_PATH_STYLE: 'true',
  S3_ACCESS_KEY_ID: 'S3RVER',
  S3_SECRET_ACCESS_KEY: 'S3RVER',
  FILE_MAX_BYTES: '1000000',
};
let s3: Awaited<ReturnType<typeof startS3>>;
beforeAll(async () => {
  s3 = await startS3('mrs-files');
  env.S3_ENDPOINT = s3.endpoint;
});
afterAll(() => s3?.stop());

describeEachDatabase(
  'attached files in an S3-compatible bucket',
  (h) => {
    const mrs = useCli(() => ({ ...env, DATA_DIR: h().service.config.dataDir, DATABASE_URL: h().service.config.databaseUrl ?? '' }));

    it('uploads stream to the bucket and come back whole, by range, and not past the limit', async () => {
      const wo = await makeWorkOrder(h());
      const bytes = Buffer.concat([PNG, Buffer.alloc(300_000, 3)]);
      const r = await upload(h(), `${M}/work_orders/${wo.id}`, form(bytes, 'pump.png'));
      expect(r.status, r.text).toBe(201);
      expect(r.body).toMatchObject({ mime_type: 'image/png', size: bytes.length });
      const at = `${r.headers.get('location')}/content`;
      expect((await send(h(), 'GET', at)).bytes.equals(bytes)).toBe(true);
      const part = await send(h(), 'GET', at, undefined, { range: 'bytes=100-199' });
      expect(part.status).toBe(206);
      expect(part.bytes.equals(bytes.subarray(100, 200))).toBe(true);
      expect((await upload(h(), `${M}/work_orders/${wo.id}`, form(Buffer.alloc(1_000_001), 'big.bin'))).status).toBe(413);
      expect((await h().get(`${M}/work_orders/${wo.id}/attached_files`)).body).toHaveLength(1);
      expect(existsSync(join(h().service.config.dataDir, 'files'))).toBe(false);
    });

    it('mrs files sweep --dry-run finds nothing to remove in a bucket whose bytes rows name', async () => {
      const dry = await mrs('files', 'sweep', '--dry-run');
      expect(dry.code, dry.err).toBe(0);
      expect(dry.out).toBe('');
      expect(dry.err).toMatch(/^would remove 0 unreferenced \(0 bytes\); kept \d+/);
    });
  },
  { env },
);
