import { expect, it } from 'vitest';
import { createService } from '../../server/service.ts';
import { createWebhook } from '../../server/webhooks/store.ts';
import { makeWorkOrder } from '../support/fixtures.ts';
import { BASE, describeEachDatabase, M, makeHarness, type Harness } from '../support/harness.ts';
import { eventually, startReceiver, verified } from '../support/webhook-receiver.ts';
import { eventJson } from '../../engine/events/event-log.ts';

/** What /metrics says of the tenants this process has open. */
const tenantsOpen = async (h: Harness) => Number(/^mrs_tenants_open (\d+)/m.exec((await h.get('/metrics')).text)?.[1]);

describeEachDatabase(
  'tenants released when idle (TENANT_IDLE_S)',
  (h) => {
    it('a request refused after its tenant was opened (404, 422) lets it go: it is closed when idle', async () => {
      const other = await h().login({ clientDb: 'refused.main' });
      expect((await h().as(other.token).get(`${M}/work_orders/999999`)).status).toBe(404);
      expect((await h().as(other.token).post(`${M}/work_orders`, { no_such_field: 1 })).status).toBe(422);
      await eventually(async () => (await tenantsOpen(h())) === 0, 'the refused tenant released');
    });

    it('a tenant nobody asked for in TENANT_IDLE_S is closed, and its next request opens it again, its data and feed as they were', async () => {
      const wo = await makeWorkOrder(h());
      const other = await h().login({ clientDb: 'other.main' });
      expect((await h().as(other.token).get(`${M}/work_orders`)).status).toBe(200);
      expect(await tenantsOpen(h())).toBeGreaterThan(0);
      await eventually(async () => (await tenantsOpen(h())) === 0, 'both tenants released');
      const again = await h().get(`${M}/work_orders/${wo.id}`);
      expect(again.status, again.text).toBe(200);
      expect(again.body.id).toBe(wo.id);
      expect(await tenantsOpen(h())).toBe(1); // only the one asked for
      const feed = await h().get(`${BASE}/events?$after=0`);
      expect(feed.status, feed.text).toBe(200);
      expect(feed.body.map((e: { id: number }) => e.id)).toContain(wo.id);
    });

    it('webhooks deliver for a tenant released while it had none: one made by another process is found through the shared note', async () => {
      const receiver = await startReceiver();
      try {
        h().service.webhooks.start();
        await makeWorkOrder(h());
        await eventually(async () => (await tenantsOpen(h())) === 0, 'the tenant released');
        // As `mrs webhook create` does from its own process.
        const cli = await createService(h().service.config);
        try {
          const t = (await cli.tenants.get('demo.main'))!;
          await createWebhook(t, receiver.url, []);
          await cli.tenants.webhooks.note('demo.main', true);
        } finally {
          await cli.close();
        }
        const wo = await makeWorkOrder(h());
        await eventually(() => receiver.acked().some((r) => JSON.parse(r.body).id === wo.id), 'the new work order delivered');
      } finally {
        await h().service.webhooks.stop();
        await receiver.close();
      }
    });

    it('a webhook made by another process just as the dispatcher found its tenant without any is still delivered', async () => {
      const receiver = await startReceiver();
      const { token } = await h().login({ clientDb: 'race.main' });
      const notes = h().service.tenants.webhooks;
      // Noted, as a tenant whose webhooks were since deleted is; every tenant looked at.
      await notes.note('', true);
      await notes.note('race.main', true);
      await eventually(async () => (await tenantsOpen(h())) === 0, 'the tenant released');
      const other = await createService(h().service.config);
      const work = notes.work.bind(notes);
      let raced = false;
      // `mrs webhook create` in its own process, between the dispatcher's look (none) and its clearing of the note.
      notes.work = async (names, now) => {
        const found = await work(names, now);
        if (!raced && found.get('race.main') === 'none') {
          raced = true;
          await createWebhook((await other.tenants.get('race.main'))!, receiver.url, []);
          await other.tenants.webhooks.note('race.main', true);
        }
        return found;
      };
      try {
        h().service.webhooks.start();
        await eventually(async () => raced, 'the race run');
        const wo = await makeWorkOrder(makeHarness(h().db, other, token));
        await eventually(() => receiver.acked().some((r) => JSON.parse(r.body).id === wo.id), 'the work order delivered');
      } finally {
        notes.work = work;
        await h().service.webhooks.stop();
        await other.close();
        await receiver.close();
      }
    });

    it('a tenant with webhooks is released when idle like any other; events written while it is closed are delivered, signed, in seq order', async () => {
      const receiver = await startReceiver();
      const { token } = await h().login({ clientDb: 'hooks.main' });
      try {
        const hook = await createWebhook((await h().service.tenants.get('hooks.main'))!, receiver.url, []);
        await h().service.tenants.webhooks.note('hooks.main', true);
        h().service.webhooks.start();
        await eventually(async () => (await tenantsOpen(h())) === 0, 'the tenant with a webhook released');
        // Written by another process: nothing here opens the tenant but the dispatcher, to deliver.
        const other = await createService(h().service.config);
        let feed;
        try {
          const writer = makeHarness(h().db, other, token);
          for (let i = 0; i < 3; i++) await makeWorkOrder(writer);
          const t = (await other.tenants.get('hooks.main'))!;
          feed = (await t.events.read(t, { after: hook.position, limit: 100 })).events;
        } finally {
          await other.close();
        }
        expect(feed.length).toBe(3);
        await eventually(() => receiver.acked().length >= feed.length, 'the events written while closed delivered');
        expect(receiver.acked().map((r) => r.id)).toEqual(feed.map((e) => `evt_${e.seq}`));
        for (const [i, r] of receiver.acked().entries()) expect(verified(hook.secret, r)).toEqual(JSON.parse(eventJson(feed[i]!)));
        await eventually(async () => (await tenantsOpen(h())) === 0, 'the tenant released again after delivering');
      } finally {
        await h().service.webhooks.stop();
        await receiver.close();
      }
    });
  },
  { env: { TENANT_IDLE_S: '2', WEBHOOK_ALLOW_PRIVATE: 'true' }, webhookRefreshMs: 100 },
);

describeEachDatabase(
  'webhooks on data where no process has looked for them yet',
  (h) => {
    it('the first look finds the tenants with webhooks without opening any tenant', async () => {
      await h().login({ clientDb: 'scan.a' });
      await h().login({ clientDb: 'scan.b' });
      await createWebhook((await h().service.tenants.get('scan.a'))!, 'http://127.0.0.1:9/hook', []);
      expect(await h().service.tenants.webhooks.noted()).toBeUndefined();
      await eventually(async () => (await tenantsOpen(h())) === 0, 'every tenant released');
      try {
        h().service.webhooks.start();
        await eventually(async () => (await h().service.tenants.webhooks.noted()) !== undefined, 'every tenant looked at');
        expect([...(await h().service.tenants.webhooks.noted())!].sort()).toEqual(['', 'scan.a']);
        expect(await tenantsOpen(h())).toBe(0);
      } finally {
        await h().service.webhooks.stop();
      }
    });
  },
  { env: { TENANT_IDLE_S: '1', WEBHOOK_ALLOW_PRIVATE: 'true' }, webhookRefreshMs: 100 },
);

describeEachDatabase(
  'a request refused by the rate limit',
  (h) => {
    it('lets its tenant go: it is closed when idle', async () => {
      const other = await h().login({ clientDb: 'limited.main' });
      expect((await h().as(other.token).get(`${M}/work_orders`)).status).toBe(200);
      expect((await h().as(other.token).get(`${M}/work_orders`)).status).toBe(429);
      await eventually(async () => (await tenantsOpen(h())) === 0, 'the refused tenant released');
    });
  },
  { env: { TENANT_IDLE_S: '1', RATE_LIMIT_MAX: '1', RATE_LIMIT_WINDOW_S: '3600' } },
);

describeEachDatabase(
  'at most TENANT_OPEN_MAX tenants open',
  (h) => {
    it('a third tenant asked for closes the least recently used idle one, and every tenant keeps answering', async () => {
      const others = [await h().login({ clientDb: 'cap.a' }), await h().login({ clientDb: 'cap.b' })];
      for (let round = 0; round < 2; round++) {
        expect((await h().get(`${M}/work_orders`)).status).toBe(200);
        for (const o of others) expect((await h().as(o.token).get(`${M}/work_orders`)).status).toBe(200);
      }
      await eventually(async () => (await tenantsOpen(h())) === 2, 'the cap kept');
      expect((await h().get(`${M}/work_orders`)).status).toBe(200);
      await eventually(async () => (await tenantsOpen(h())) === 2, 'the cap kept after a reopening');
    });

    it('writes at once to more tenants than the cap: every one answers and is kept, and the cap holds once they end', async () => {
      const callers = await Promise.all(Array.from({ length: 6 }, (_, i) => h().login({ clientDb: `burst.t${i}` })));
      const made = await Promise.all(
        callers.flatMap((c) => Array.from({ length: 4 }, () => makeWorkOrder(h().as(c.token)).then((wo) => wo.id as number))),
      );
      expect(made).toHaveLength(24);
      expect(await tenantsOpen(h())).toBeLessThanOrEqual(2);
      for (const c of callers) {
        const list = await h().as(c.token).get(`${M}/work_orders?$limit=100`);
        expect(list.status, list.text).toBe(200);
        expect(list.body).toHaveLength(4);
      }
      expect(await tenantsOpen(h())).toBeLessThanOrEqual(2);
    });
  },
  { env: { TENANT_IDLE_S: '0', TENANT_OPEN_MAX: '2' } },
);
