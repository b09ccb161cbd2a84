import { afterAll, describe, expect, it } from 'vitest';
import type { TenantDb } from '../../engine/dialects/types.ts';
import { eventJson } from '../../engine/events/event-log.ts';
import { Writable } from 'node:stream';
import { createLogger } from '../../server/logging.ts';
import { createDispatcher } from '../../server/webhooks/dispatcher.ts';
import { webhookMetrics } from '../../server/webhooks/metrics.ts';
import { createWebhook, listWebhooks, type Webhook } from '../../server/webhooks/store.ts';
import { makeWorkOrder } from '../support/fixtures.ts';
import { describeEachDatabase, DATABASES, M, startHarness, type Harness } from '../support/harness.ts';
import { eventually, startReceiver, verified } from '../support/webhook-receiver.ts';

/** Webhook delivery (SPEC 9), verified with the standardwebhooks package. */

const tenantOf = async (h: Harness) => (await h.service.tenants.get('demo.main')) as TenantDb;
const feedAfter = async (h: Harness, after: number) => {
  const t = await tenantOf(h);
  return (await t.events.read(t, { after, limit: 1000 })).events;
};
const hookOf = async (h: Harness, id: string) => (await listWebhooks(await tenantOf(h))).find((w) => w.id === id)!;
const changes = async (h: Harness, n: number) => {
  for (let i = 0; i < n; i++) {
    const wo = await makeWorkOrder(h, { priority: 2 });
    expect((await h.patch(`${M}/work_orders/${wo.id}`, { priority: 4 })).status).toBe(200);
  }
};
const metric = (text: string, name: string, id: string) =>
  Number(new RegExp(`^${name}\\{[^}]*webhook="${id}"[^}]*\\} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);

/** Every acknowledged delivery: verified, in seq order, the feed's events after `from` exactly. */
async function expectDeliveredInOrder(h: Harness, hook: Webhook, receiver: Awaited<ReturnType<typeof startReceiver>>, from: number) {
  const feed = await feedAfter(h, from);
  const acked = receiver.acked();
  expect(acked.map((r) => r.id)).toEqual(feed.map((e) => `evt_${e.seq}`));
  for (const [i, r] of acked.entries()) {
    expect(r.contentType).toBe('application/json');
    expect(verified(hook.secret, r)).toEqual(JSON.parse(eventJson(feed[i]!)));
    expect(r.body).toBe(eventJson(feed[i]!));
  }
}

const ENV = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_MAX_BACKOFF_S: '1' };

describeEachDatabase(
  'webhook delivery',
  (h) => {
    it('a receiver down for a while (500, then refusing connections) gets every later event once it recovers, in seq order, each signature valid', async () => {
      await makeWorkOrder(h()); // before the webhook: never delivered
      const receiver = await startReceiver();
      try {
        const t = await tenantOf(h());
        const hook = await createWebhook(t, receiver.url, []);
        const start = hook.position;
        expect(start).toBeGreaterThan(0);
        receiver.answer(500);
        h().service.webhooks.start();
        await changes(h(), 2);
        await eventually(() => receiver.received.length >= 2, 'two refused attempts');
        expect(new Set(receiver.received.map((r) => r.id))).toEqual(new Set([`evt_${(await feedAfter(h(), start))[0]!.seq}`]));
        expect((await hookOf(h(), hook.id)).lastError).toBe('HTTP 500');
        await receiver.down();
        await changes(h(), 2);
        await eventually(async () => /ECONNREFUSED/.test((await hookOf(h(), hook.id)).lastError ?? ''), 'a refused connection recorded');
        receiver.answer(200);
        await receiver.up();
        const end = (await feedAfter(h(), start)).at(-1)!.seq;
        await eventually(async () => (await hookOf(h(), hook.id)).position === end, 'every event delivered');
        await expectDeliveredInOrder(h(), hook, receiver, start);
        const after = await hookOf(h(), hook.id);
        expect(after).toMatchObject({ state: 'active', lastError: null, attempts: 0 });
        const text = (await h().get('/metrics')).text;
        expect(metric(text, 'mrs_webhook_deliveries_total', hook.id)).toBe(receiver.acked().length);
        expect(metric(text, 'mrs_webhook_failures_total', hook.id)).toBeGreaterThanOrEqual(3);
        expect(metric(text, 'mrs_webhook_lag_events', hook.id)).toBe(0);
      } finally {
        await h().service.webhooks.stop();
        await receiver.close();
      }
    });

    it('a failing webhook is logged once when it starts failing and once when it recovers, not once per retry', async () => {
      const receiver = await startReceiver();
      const lines: any[] = [];
      const logger = createLogger('info', new Writable({ write: (c, _e, done) => (lines.push(JSON.parse(String(c))), done()) }) as any);
      const dispatcher = createDispatcher({
        tenants: h().service.tenants,
        logger,
        metrics: webhookMetrics(),
        allowPrivate: true,
        maxBackoffS: 1,
        giveUpS: 3600,
        refreshMs: 100,
      });
      try {
        const hook = await createWebhook(await tenantOf(h()), receiver.url, []);
        receiver.answer(500);
        dispatcher.start();
        await changes(h(), 1);
        await eventually(() => receiver.received.length >= 3, 'three failed attempts');
        receiver.answer(200);
        const end = (await feedAfter(h(), hook.position)).at(-1)!.seq;
        await eventually(async () => (await hookOf(h(), hook.id)).position === end, 'recovery');
        const mine = lines.filter((l) => l.webhook === hook.id).map((l) => l.msg);
        expect(mine).toEqual(['webhook failing: retrying with backoff', 'webhook recovered']);
      } finally {
        await dispatcher.stop();
        await receiver.close();
      }
    });

    it('only events of the webhook collections are delivered', async () => {
      const receiver = await startReceiver();
      try {
        const t = await tenantOf(h());
        const hook = await createWebhook(t, receiver.url, ['notes']);
        h().service.webhooks.start();
        const wo = await makeWorkOrder(h());
        expect((await h().post(`${M}/work_orders/${wo.id}/notes`, { note: 'n' })).status).toBe(201);
        const end = (await feedAfter(h(), hook.position)).at(-1)!.seq;
        await eventually(async () => (await hookOf(h(), hook.id)).position === end, 'the feed passed');
        expect(receiver.acked().map((r) => JSON.parse(r.body).collection)).toEqual(['notes']);
      } finally {
        await h().service.webhooks.stop();
        await receiver.close();
      }
    });
  },
  { env: ENV, webhookRefreshMs: 100 },
);

describeEachDatabase(
  'webhook give-up and enable',
  (h) => {
    it('after WEBHOOK_GIVE_UP_S of failures the webhook is disabled with its position kept; enable resumes from there', async () => {
      const receiver = await startReceiver();
      try {
        const t = await tenantOf(h());
        const hook = await createWebhook(t, receiver.url, []);
        receiver.answer(503);
        h().service.webhooks.start();
        await changes(h(), 1);
        await eventually(async () => (await hookOf(h(), hook.id)).state === 'disabled', 'the webhook disabled');
        const disabled = await hookOf(h(), hook.id);
        expect(disabled).toMatchObject({ position: hook.position, lastError: 'HTTP 503' });
        const attempts = receiver.received.length;
        await changes(h(), 1);
        await new Promise((r) => setTimeout(r, 500));
        expect(receiver.received.length).toBe(attempts); // disabled: nothing more is tried
        receiver.answer(204);
        const { enableWebhook } = await import('../../server/webhooks/store.ts');
        expect(await enableWebhook(t, hook.id)).toBe(true);
        const end = (await feedAfter(h(), hook.position)).at(-1)!.seq;
        await eventually(async () => (await hookOf(h(), hook.id)).position === end, 'delivery resumed');
        await expectDeliveredInOrder(h(), hook, receiver, hook.position);
      } finally {
        await h().service.webhooks.stop();
        await receiver.close();
      }
    });
  },
  { env: { ...ENV, WEBHOOK_GIVE_UP_S: '1' }, webhookRefreshMs: 100 },
);

describeEachDatabase(
  'webhook private-address rule at delivery',
  (h) => {
    it('a webhook to a loopback address (literal or by name) is refused at delivery when private addresses are not allowed', async () => {
      const receiver = await startReceiver();
      try {
        const t = await tenantOf(h());
        const port = new URL(receiver.url).port;
        // Stored directly: the CLI would refuse them at creation (tested in webhooks-cli.test.ts).
        const literal = await createWebhook(t, receiver.url, []);
        const named = await createWebhook(t, `http://localhost:${port}/hook`, []);
        const mapped = await createWebhook(t, `http://[::ffff:127.0.0.1]:${port}/hook`, []);
        h().service.webhooks.start();
        await changes(h(), 1);
        for (const w of [literal, named, mapped])
          await eventually(async () => /private/.test((await hookOf(h(), w.id)).lastError ?? ''), `${w.url} refused`);
        expect(receiver.received).toEqual([]);
      } finally {
        await h().service.webhooks.stop();
        await receiver.close();
      }
    });
  },
  { env: { WEBHOOK_MAX_BACKOFF_S: '1' }, webhookRefreshMs: 100 },
);

for (const db of DATABASES)
  describe(`webhook positions across restarts and processes [${db}]`, () => {
    const stops: (() => Promise<void>)[] = [];
    afterAll(async () => {
      for (const s of stops.reverse()) await s();
    });

    it('a restarted service resumes from the kept position: events delivered before are not sent again', async () => {
      const receiver = await startReceiver();
      stops.push(receiver.close);
      const first = await startHarness(db, { env: ENV, webhookRefreshMs: 100 });
      const t1 = await tenantOf(first.harness);
      const hook = await createWebhook(t1, receiver.url, []);
      first.harness.service.webhooks.start();
      await changes(first.harness, 2);
      const mid = (await feedAfter(first.harness, 0)).at(-1)!.seq;
      await eventually(async () => (await hookOf(first.harness, hook.id)).position === mid, 'the first deliveries');
      await first.stop(true);
      stops.push(first.cleanup); // its data, which the second service reuses and leaves: after it stops
      const second = await startHarness(db, {
        env: ENV,
        webhookRefreshMs: 100,
        reuse: { dataDir: first.dataDir, databaseUrl: first.databaseUrl },
      });
      stops.push(() => second.stop());
      expect((await hookOf(second.harness, hook.id)).position).toBe(mid);
      await changes(second.harness, 1);
      second.harness.service.webhooks.start();
      const end = (await feedAfter(second.harness, 0)).at(-1)!.seq;
      await eventually(async () => (await hookOf(second.harness, hook.id)).position === end, 'the later deliveries');
      await expectDeliveredInOrder(second.harness, hook, receiver, hook.position);
      await second.harness.service.webhooks.stop();
    });

    it.runIf(db === 'postgres')('two services on one database deliver each event once', async () => {
      const receiver = await startReceiver();
      stops.push(receiver.close);
      const a = await startHarness(db, { env: ENV, webhookRefreshMs: 100 });
      stops.push(() => a.stop());
      const b = await startHarness(db, { env: ENV, webhookRefreshMs: 100, reuse: { databaseUrl: a.databaseUrl } });
      stops.push(() => b.stop(true));
      const hooks = [];
      for (let i = 0; i < 3; i++) hooks.push(await createWebhook(await tenantOf(a.harness), `${receiver.url}?n=${i}`, []));
      a.harness.service.webhooks.start();
      b.harness.service.webhooks.start();
      await Promise.all([changes(a.harness, 5), changes(b.harness, 5)]);
      const end = (await feedAfter(a.harness, 0)).at(-1)!.seq;
      for (const w of hooks) await eventually(async () => (await hookOf(a.harness, w.id)).position === end, 'every webhook delivered');
      await a.harness.service.webhooks.stop();
      await b.harness.service.webhooks.stop();
      // Both alive and every answer a 2xx: each event reached each webhook exactly once, in order.
      expect(receiver.received.length).toBe(receiver.acked().length);
      const feed = (await feedAfter(a.harness, hooks[0]!.position)).map((e) => `evt_${e.seq}`);
      expect(feed.length).toBe(20);
      for (const [i, w] of hooks.entries()) {
        const got = receiver.received.filter((r) => r.path === `/hook?n=${i}`);
        expect(got.map((r) => r.id)).toEqual(feed);
        for (const r of got) verified(w.secret, r);
      }
    });
  });
