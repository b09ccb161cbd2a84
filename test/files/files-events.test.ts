import { expect, it } from 'vitest';
import type { TenantDb } from '../../engine/dialects/types.ts';
import { eventJson } from '../../engine/events/event-log.ts';
import { createWebhook } from '../../server/webhooks/store.ts';
import { makeRole } from '../support/auth.ts';
import { make, makeWorkOrder, RFC3339_UTC, SERVICE_REQUEST } from '../support/fixtures.ts';
import { form, upload } from '../support/files.ts';
import { BASE, describeEachDatabase, M, type Harness } from '../support/harness.ts';
import { sseReader } from '../support/sse.ts';
import { eventually, startReceiver, verified } from '../support/webhook-receiver.ts';

/** A file's events (SPEC 13): like any record's, naming their parent, shown by the parent's collection. */
const EVENTS = `${BASE}/events`;
const seqOf = (r: { headers: Headers }) => Number(r.headers.get('x-change-seq'));

/** A work order and a service request, each with one file uploaded; their ids and the files'. */
async function filedParents(h: Harness) {
  const wo = await makeWorkOrder(h);
  const sr = await make(h, 'service_requests', SERVICE_REQUEST);
  const woFile = await upload(h, `${M}/work_orders/${wo.id}`, form('pump', 'pump.txt', { description: 'the pump' }, 'text/plain'));
  const srFile = await upload(h, `${M}/service_requests/${sr.id}`, form('tap', 'tap.txt', {}, 'text/plain'));
  expect([woFile.status, srFile.status]).toEqual([201, 201]);
  return { wo: wo.id as number, sr: sr.id as number, woFile: woFile.body.id as number, srFile: srFile.body.id as number };
}

describeEachDatabase(
  "a file's events",
  (h) => {
    it('carry collection attached_files and parent {collection, id}; other events carry no parent', async () => {
      const start = seqOf(await h().get(EVENTS));
      const { wo, sr, woFile, srFile } = await filedParents(h());
      const at = `${M}/work_orders/${wo}/attached_files/${woFile}`;
      expect((await h().patch(at, { description: 'after repair' })).status).toBe(200);
      expect((await h().del(at)).status).toBe(204);
      const feed = await h().get(`${EVENTS}?$after=${start}`);
      expect(feed.status, feed.text).toBe(200);
      const files = feed.body.filter((e: any) => e.collection === 'attached_files');
      expect(files.map((e: any) => [e.id, e.op, e.parent])).toEqual([
        [woFile, 'create', { collection: 'work_orders', id: wo }],
        [srFile, 'create', { collection: 'service_requests', id: sr }],
        [woFile, 'update', { collection: 'work_orders', id: wo }],
        [woFile, 'delete', { collection: 'work_orders', id: wo }],
      ]);
      const { content_url: _url, ...record } = (await h().get(`${at}?$deleted=true`)).body;
      expect(files[3]).toEqual({
        seq: expect.any(Number),
        at: expect.stringMatching(RFC3339_UTC),
        collection: 'attached_files',
        id: woFile,
        op: 'delete',
        changed: ['deleted'],
        record,
        user: 'admin',
        parent: { collection: 'work_orders', id: wo },
      });
      expect(files[2].changed).toEqual(['description']);
      for (const e of feed.body.filter((e: any) => e.collection !== 'attached_files')) expect(Object.keys(e)).not.toContain('parent');
    });

    it("are shown to a role that may read the parent's collection, whatever it may read of others", async () => {
      await makeRole(h().service, 'demo.main', 'wo_only', [{ collection: 'work_orders', action: 'read' }]);
      await makeRole(h().service, 'demo.main', 'sr_only', [{ collection: 'service_requests', action: 'read' }]);
      const woReader = h().as((await h().login({ username: 'wanda', roles: ['wo_only'] })).token);
      const srReader = h().as((await h().login({ username: 'sam', roles: ['sr_only'] })).token);
      const nobody = h().as((await h().login({ username: 'nell', roles: [] })).token);
      const start = seqOf(await h().get(EVENTS));
      const { wo, sr, woFile, srFile } = await filedParents(h());
      const seen = async (who: Harness, query = '') => {
        const r = await who.get(`${EVENTS}?$after=${start}${query}`);
        expect(r.status, r.text).toBe(200);
        expect(seqOf(r)).toBe(start + 4);
        return r.body.map((e: any) => [e.collection, e.id]);
      };
      expect(await seen(woReader)).toEqual([
        ['work_orders', wo],
        ['attached_files', woFile],
      ]);
      expect(await seen(woReader, '&collection=attached_files')).toEqual([['attached_files', woFile]]);
      expect(await seen(srReader)).toEqual([
        ['service_requests', sr],
        ['attached_files', srFile],
      ]);
      expect(await seen(nobody)).toEqual([]);
      expect(await seen(h(), '&collection=attached_files')).toEqual([
        ['attached_files', woFile],
        ['attached_files', srFile],
      ]);
      // A file's event that names no parent (written before events named one) only for who may read every parent.
      const t = (await h().service.tenants.get('demo.main')) as TenantDb;
      const legacy = { at: new Date().toISOString(), collection: 'attached_files', id: srFile, op: 'update' as const };
      await t.events.append(t, t.db, [{ ...legacy, changed: [], record: `{"id":${srFile}}`, user: 'admin' }]);
      const after = seqOf(await h().get(EVENTS));
      expect((await woReader.get(`${EVENTS}?$after=${after - 1}`)).body).toEqual([]);
      expect((await h().get(`${EVENTS}?$after=${after - 1}`)).body.map((e: any) => [e.id, e.op, e.parent])).toEqual([
        [srFile, 'update', undefined],
      ]);

      // The stream filters alike, and its events carry the parent.
      const controller = new AbortController();
      const res = await h().service.app.request(`${EVENTS}?$after=${start}&collection=attached_files`, {
        headers: { accept: 'text/event-stream', ...h().authHeaders(woReader.token!) },
        signal: controller.signal,
      });
      const stream = sseReader(res, () => controller.abort());
      const [first] = await stream.events(1);
      expect(JSON.parse(first!.data!)).toMatchObject({ id: woFile, parent: { collection: 'work_orders', id: wo } });
      await upload(h(), `${M}/service_requests/${sr}`, form('tap 2', 'tap2.txt', {}, 'text/plain'));
      const later = await upload(h(), `${M}/work_orders/${wo}`, form('pump 2', 'pump2.txt', {}, 'text/plain'));
      const [next] = await stream.events(1);
      expect(JSON.parse(next!.data!)).toMatchObject({ id: later.body.id, parent: { collection: 'work_orders', id: wo } });
      stream.close();
    });

    it('reach webhooks with their parent, signed like any event', async () => {
      const receiver = await startReceiver();
      try {
        const t = (await h().service.tenants.get('demo.main')) as TenantDb;
        const hook = await createWebhook(t, receiver.url, ['attached_files']);
        h().service.webhooks.start();
        const { sr, srFile } = await filedParents(h());
        await eventually(() => receiver.acked().length >= 2, 'both files delivered');
        const bodies = receiver.acked().map((r) => verified(hook.secret, r) as any);
        expect(bodies.map((e) => [e.collection, e.op])).toEqual([
          ['attached_files', 'create'],
          ['attached_files', 'create'],
        ]);
        expect(bodies[1]).toMatchObject({ id: srFile, parent: { collection: 'service_requests', id: sr } });
        const stored = (await t.events.read(t, { after: hook.position, limit: 10, collections: ['attached_files'] })).events;
        expect(receiver.acked().map((r) => r.body)).toEqual(stored.map(eventJson));
      } finally {
        await h().service.webhooks.stop();
        await receiver.close();
      }
    });
  },
  { env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_MAX_BACKOFF_S: '1' }, webhookRefreshMs: 100 },
);
