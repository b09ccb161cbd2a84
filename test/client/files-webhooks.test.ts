import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../../client/index.ts';
import { DATABASES } from '../support/harness.ts';
import { servedService } from '../support/client-service.ts';
import { WORK_ORDER } from '../support/fixtures.ts';

const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) % 251);
const read = async (stream: ReadableStream<Uint8Array>) => new Uint8Array(await new Response(stream).arrayBuffer());
const streamOf = (data: Uint8Array, chunk: number) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < data.length; i += chunk) c.enqueue(data.slice(i, i + chunk));
      c.close();
    },
  });

for (const db of DATABASES) {
  describe(`the client's attached files [${db}]`, () => {
    const served = servedService(db);

    it('uploads from a Blob, a stream and a path; downloads the bytes as a stream, whole or a range', async () => {
      const client = served().client();
      const order = await client.collection('work_orders').create(WORK_ORDER);
      const files = client.files('work_orders', order.id);
      const one = bytes(70_000, 1);
      const fromBlob = await files.upload(new Blob([one]), { filename: 'one.bin', description: 'from a blob' });
      expect(fromBlob).toMatchObject({ filename: 'one.bin', description: 'from a blob', size: one.length });
      const two = bytes(200_000, 2);
      const fromStream = await files.upload(streamOf(two, 16_384), { filename: 'two.bin' });
      expect(fromStream).toMatchObject({ filename: 'two.bin', size: two.length, description: null });
      const dir = mkdtempSync(join(tmpdir(), 'mrs-client-'));
      try {
        const three = bytes(5000, 3);
        writeFileSync(join(dir, 'three.bin'), three);
        const fromPath = await files.upload(join(dir, 'three.bin'));
        expect(fromPath).toMatchObject({ filename: 'three.bin', size: three.length });
        expect(await read((await files.download(fromPath.id)).body)).toEqual(three);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      const whole = await files.download(fromStream.id);
      expect(whole.status).toBe(200);
      expect(await read(whole.body)).toEqual(two);
      const part = await files.download(fromBlob.id, { range: [1000, 1999] });
      expect([part.status, part.contentRange]).toEqual([206, `bytes 1000-1999/${one.length}`]);
      expect(await read(part.body)).toEqual(one.slice(1000, 2000));
      const tail = await files.download(fromBlob.id, { range: [69_990] });
      expect(await read(tail.body)).toEqual(one.slice(69_990));
      expect((await files.list()).map((f) => f.filename)).toEqual(['one.bin', 'two.bin', 'three.bin']);
    });
  });
}

describe("the client's webhook verification, against the standardwebhooks package", () => {
  const secret = `whsec_${Buffer.from('a secret of thirty-two bytes!!!!').toString('base64')}`;
  const body = JSON.stringify({ seq: 5, collection: 'work_orders', id: 1, op: 'update' });
  const signed = (at: Date, payload = body) => ({
    'webhook-id': 'evt_5',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign('evt_5', at, payload),
  });

  it('accepts what the package signs, and the package accepts what it accepts', async () => {
    const headers = signed(new Date());
    expect(await verifyWebhook(secret, body, headers)).toEqual(JSON.parse(body));
    expect(await verifyWebhook(secret, body, new Headers(headers))).toEqual(JSON.parse(body));
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    // Several signatures (a secret being rotated): one that matches is enough.
    const rotated = { ...headers, 'webhook-signature': `v1,AAAA ${headers['webhook-signature']}` };
    expect(await verifyWebhook(secret, body, rotated)).toEqual(JSON.parse(body));
  });

  it('refuses a changed body, another secret, a missing header and an old timestamp, as the package does', async () => {
    const headers = signed(new Date());
    const other = `whsec_${Buffer.from('another secret of 32 bytes......').toString('base64')}`;
    const old = signed(new Date(Date.now() - 10 * 60_000));
    const cases: [string, string, Record<string, string>][] = [
      [secret, body.replace('5', '6'), headers],
      [other, body, headers],
      [secret, body, { ...headers, 'webhook-signature': '' }],
      [secret, body, old],
    ];
    for (const [s, b, h] of cases) {
      await expect(verifyWebhook(s, b, h)).rejects.toBeInstanceOf(WebhookVerificationError);
      expect(() => new Webhook(s).verify(b, h)).toThrow();
    }
  });
});
