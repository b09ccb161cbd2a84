import { expect, it } from 'vitest';
import { createService } from '../../server/service.ts';
import { createWebhook } from '../../server/webhooks/store.ts';
import { makeWorkOrder } from '../support/fixtures.ts';
import { BASE, describeEachDatabase, M, type Harness } from '../support/harness.ts';
import { eventually, startReceiver } from '../support/webhook-receiver.ts';

/** What /metrics says of the tenants this process has open. */
const tenantsOpen = async (h: Harness) => Number(/^mrs_tenants_open (\d+)/m.exec((await h.get('/metrics')).text)?.[1]);

describeEachDatabase(
  'tenants released when idle (TENANT_IDLE_S)',
  (h) => {
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
          await cli.tenants.noteWebhooks('demo.main', true);
        } finally {
          await cli.close();
        }
        await eventually(async () => (await tenantsOpen(h())) === 1, 'the dispatcher opened the noted tenant');
        const wo = await makeWorkOrder(h());
        await eventually(() => receiver.acked().some((r) => JSON.parse(r.body).id === wo.id), 'the new work order delivered');
      } finally {
        await h().service.webhooks.stop();
        await receiver.close();
      }
    });
  },
  { env: { TENANT_IDLE_S: '2', WEBHOOK_ALLOW_PRIVATE: 'true' }, webhookRefreshMs: 100 },
);
