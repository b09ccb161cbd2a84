import { randomUUID } from 'node:crypto';
import type { TenantDb } from '../../engine/dialects/types.ts';
import { eventJson } from '../../engine/events/event-log.ts';
import type { Logger } from '../logging.ts';
import { usingLease, type TenantStore } from '../tenants/types.ts';
import { deliver } from './deliver.ts';
import type { WebhookMetrics } from './metrics.ts';
import { advanceWebhook, claimWebhook, failWebhook, listWebhooks, releaseWebhook, type Webhook } from './store.ts';

export interface DispatcherOptions {
  readonly tenants: TenantStore;
  readonly logger: Logger;
  readonly metrics: WebhookMetrics;
  readonly allowPrivate: boolean;
  readonly maxBackoffS: number;
  readonly giveUpS: number;
  /** How often the note of tenants with webhooks is read again (default 5000 ms). */
  readonly refreshMs?: number;
  /** How often the tenants with webhooks are asked for new events (default 250 ms). */
  readonly pollMs?: number;
  readonly now?: () => number;
}

export interface Dispatcher {
  start(): void;
  /** Stops polling, aborts deliveries in flight, lets its leases go. */
  stop(): Promise<void>;
}

/** A lease outlives one delivery's timeout with room to spare; it is renewed with every advance. */
const LEASE_MS = 30_000;
/** Events read from the feed per claim. */
const BATCH = 100;

interface Known {
  readonly tenant: TenantDb;
  readonly clientDb: string;
  webhook: Webhook;
}

/** Retry wait after the n-th failure in a row: 1 s, doubling, capped (SPEC 9). */
export const backoffMs = (attempts: number, maxBackoffS: number): number => Math.min(2 ** Math.min(attempts - 1, 30), maxBackoffS) * 1000;

/**
 * Delivers each tenant's change feed to its webhooks, off the request path. Every poll one query
 * (per store: `TenantStore.webhooks.work`) asks the tenants with webhooks which have one behind
 * its feed and due, opening none of them; only such a tenant is opened, to deliver, and is then
 * released by the idle rule like any other. For each such webhook it claims a lease (one process
 * delivers it), sends its events one at a time in seq order, advances its position after each
 * 2xx and lets the lease go. A failure stops the webhook's events until its backoff has passed.
 */
export function createDispatcher(o: DispatcherOptions): Dispatcher {
  const me = randomUUID();
  const now = o.now ?? Date.now;
  const refreshMs = o.refreshMs ?? 5000;
  const pollMs = o.pollMs ?? 250;
  let noted = new Set<string>();
  /** The webhooks met per tenant, for their metrics. */
  const met = new Map<string, Set<string>>();
  /** Tenants being delivered now. */
  const busy = new Set<string>();
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let lastRefresh = -Infinity;
  const inFlight = new Set<Promise<void>>();
  let abort = new AbortController();

  /**
   * The tenants noted to have webhooks (one read, shared by every process); on a data set where no
   * process has looked yet, every tenant is asked once, in the stores' one query, none opened.
   */
  async function notedTenants(): Promise<Set<string>> {
    const notes = o.tenants.webhooks;
    const known = await notes.noted();
    if (known) return known;
    for (const [clientDb, work] of await notes.work(await o.tenants.list(), now())) if (work !== 'none') await notes.note(clientDb, true);
    await notes.note('', true);
    return (await notes.noted()) ?? new Set();
  }

  function forget(clientDb: string, keep: ReadonlySet<string> = new Set()): void {
    for (const id of met.get(clientDb) ?? []) if (!keep.has(id)) o.metrics.forget(clientDb, id);
    if (keep.size === 0) met.delete(clientDb);
    else met.set(clientDb, new Set(keep));
  }

  /** Opens the tenant, and delivers each of its active webhooks behind the feed and due, side by side. */
  async function deliverTenant(clientDb: string): Promise<void> {
    await usingLease(o.tenants, clientDb, async (tenant) => {
      if (!tenant) return;
      const active = await listWebhooks(tenant, 'active');
      forget(clientDb, new Set(active.map((w) => w.id)));
      const highest = await tenant.events.highest(tenant);
      for (const webhook of active) o.metrics.lag(clientDb, webhook.id, Math.max(highest - webhook.position, 0));
      const due = active.filter((w) => highest > w.position && (w.nextAttemptAt === null || w.nextAttemptAt <= now()));
      // Each webhook on its own: a slow receiver does not hold up the tenant's others.
      await Promise.all(
        due.map((webhook) =>
          run({ tenant, clientDb, webhook }).catch((err) =>
            o.logger.error({ err, tenant: clientDb, webhook: webhook.id }, 'webhook dispatch failed'),
          ),
        ),
      );
    });
  }

  /** Sends what the webhook has not had yet, while it succeeds and the lease holds. */
  async function run(w: Known): Promise<void> {
    const claimed = await claimWebhook(w.tenant, w.webhook.id, me, now(), now() + LEASE_MS);
    if (!claimed) return;
    try {
      await send(w, claimed);
    } finally {
      await releaseWebhook(w.tenant, w.webhook.id, me).catch(() => {});
    }
  }

  async function send(w: Known, claimed: Webhook): Promise<void> {
    let webhook = claimed;
    while (running) {
      w.webhook = webhook;
      const collections = webhook.collections.length > 0 ? webhook.collections : undefined;
      const page = await w.tenant.events.read(w.tenant, { after: webhook.position, limit: BATCH, collections });
      o.metrics.lag(w.clientDb, webhook.id, page.highest - webhook.position);
      if (page.goneBelow > webhook.position)
        o.logger.warn(
          { tenant: w.clientDb, webhook: webhook.id, position: webhook.position, goneBelow: page.goneBelow },
          'webhook behind the feed retention: events up to goneBelow were removed before delivery',
        );
      for (const event of page.events) {
        if (!running) return;
        const failure = await deliver({
          url: webhook.url,
          secret: webhook.secret,
          id: `evt_${event.seq}`,
          body: eventJson(event),
          allowPrivate: o.allowPrivate,
          signal: abort.signal,
        });
        if (!running) return;
        if (failure !== undefined) return failed(w, webhook, failure);
        o.metrics.delivered(w.clientDb, webhook.id);
        if (!(await advanceWebhook(w.tenant, webhook.id, me, event.seq, now() + LEASE_MS))) return; // the lease was lost
        if (webhook.attempts > 0) o.logger.info({ tenant: w.clientDb, webhook: webhook.id, url: webhook.url }, 'webhook recovered');
        webhook = { ...webhook, position: event.seq, attempts: 0, failingSince: null, lastError: null };
        o.metrics.lag(w.clientDb, webhook.id, Math.max(page.highest - event.seq, 0));
      }
      // A page shorter than asked holds every matching event up to `highest`: none left below it.
      if (page.events.length < BATCH) {
        if (page.highest > webhook.position && (await advanceWebhook(w.tenant, webhook.id, me, page.highest, now() + LEASE_MS)))
          webhook = { ...webhook, position: page.highest };
        w.webhook = webhook;
        o.metrics.lag(w.clientDb, webhook.id, 0);
        return;
      }
    }
  }

  async function failed(w: Known, webhook: Webhook, error: string): Promise<void> {
    o.metrics.failed(w.clientDb, webhook.id);
    const at = now();
    const failingSince = webhook.failingSince ?? at;
    const attempts = webhook.attempts + 1;
    const disable = at - failingSince >= o.giveUpS * 1000;
    await failWebhook(w.tenant, webhook.id, me, {
      error,
      failingSince,
      attempts,
      nextAttemptAt: at + backoffMs(attempts, o.maxBackoffS),
      disable,
    });
    w.webhook = { ...webhook, failingSince, attempts, lastError: error };
    const log = { tenant: w.clientDb, webhook: webhook.id, url: webhook.url, position: webhook.position, error };
    if (disable) {
      o.logger.error(
        { ...log, failingSinceS: Math.round((at - failingSince) / 1000) },
        'webhook disabled: deliveries failed for WEBHOOK_GIVE_UP_S',
      );
      met.get(w.clientDb)?.delete(webhook.id);
      o.metrics.forget(w.clientDb, webhook.id);
    } else if (attempts === 1) o.logger.warn(log, 'webhook failing: retrying with backoff');
  }

  /**
   * Clears a tenant's note, then asks it again: a webhook made after the first look noted itself
   * before the clearing (a no-op then), so it is noted back here. False when it was.
   */
  async function unnoted(clientDb: string): Promise<boolean> {
    await o.tenants.webhooks.note(clientDb, false);
    const again = (await o.tenants.webhooks.work([clientDb], now())).get(clientDb);
    if (again === undefined || again === 'none') {
      noted.delete(clientDb);
      return true;
    }
    await o.tenants.webhooks.note(clientDb, true);
    return false;
  }

  async function tick(): Promise<void> {
    if (now() - lastRefresh >= refreshMs) {
      lastRefresh = now();
      noted = await notedTenants();
      // Those open here too, at each refresh: a webhook made in this process's tenant before it was noted.
      const unnoted = (await o.tenants.opened()).map((t) => t.key).filter((clientDb) => !noted.has(clientDb));
      for (const [clientDb, work] of await o.tenants.webhooks.work(unnoted, now()))
        if (work !== 'none') {
          await o.tenants.webhooks.note(clientDb, true);
          noted.add(clientDb);
        }
    }
    const names = new Set(noted);
    names.delete('');
    for (const clientDb of busy) names.delete(clientDb);
    if (names.size === 0) return;
    for (const [clientDb, work] of await o.tenants.webhooks.work([...names], now())) {
      if (!running) return;
      if (work === 'none' && noted.has(clientDb) && !(await unnoted(clientDb))) continue;
      if (work !== 'none' && !noted.has(clientDb)) {
        await o.tenants.webhooks.note(clientDb, true);
        noted.add(clientDb);
      }
      if (work === 'none') forget(clientDb);
      if (work !== 'due') continue;
      busy.add(clientDb);
      const task = deliverTenant(clientDb)
        .catch((err) => o.logger.error({ err, tenant: clientDb }, 'webhook dispatch failed'))
        .finally(() => {
          busy.delete(clientDb);
          inFlight.delete(task);
        });
      inFlight.add(task);
    }
  }

  let ticking: Promise<void> = Promise.resolve();
  const loop = () => {
    ticking = tick()
      .catch((err) => o.logger.error({ err }, 'webhook poll failed'))
      .then(() => {
        if (running) timer = setTimeout(loop, pollMs);
      });
  };

  return {
    start() {
      if (running) return;
      running = true;
      abort = new AbortController();
      timer = setTimeout(loop, 0);
    },
    async stop() {
      if (!running) return;
      running = false;
      clearTimeout(timer);
      abort.abort();
      await ticking;
      await Promise.allSettled([...inFlight]);
    },
  };
}
