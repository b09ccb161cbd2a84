import { randomUUID } from 'node:crypto';
import type { TenantDb } from '../../engine/dialects/types.ts';
import { eventJson } from '../../engine/events/event-log.ts';
import { feedWatcher } from '../../engine/events/feed-watcher.ts';
import type { Logger } from '../logging.ts';
import type { TenantStore } from '../tenants/types.ts';
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
  /** How often tenants are searched for active webhooks (default 5000 ms). */
  readonly refreshMs?: number;
  /** How often the feeds of tenants with webhooks are polled (default 250 ms). */
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
  busy: boolean;
}

/** Retry wait after the n-th failure in a row: 1 s, doubling, capped (SPEC 9). */
export const backoffMs = (attempts: number, maxBackoffS: number): number => Math.min(2 ** Math.min(attempts - 1, 30), maxBackoffS) * 1000;

/**
 * Delivers each tenant's change feed to its webhooks, off the request path. Every few seconds
 * it lists the tenants' active webhooks; every poll it reads each such tenant's feed end and,
 * for a webhook behind it, claims the webhook with a lease (one process delivers it), sends its
 * events one at a time in seq order, and advances its position after each 2xx. A failure
 * stops the webhook's events until its backoff has passed. Without webhooks no feed is read.
 */
export function createDispatcher(o: DispatcherOptions): Dispatcher {
  const me = randomUUID();
  const now = o.now ?? Date.now;
  const refreshMs = o.refreshMs ?? 5000;
  const pollMs = o.pollMs ?? 250;
  let known = new Map<string, Known>();
  let notedTenants = new Set<string>();
  /** Per tenant with webhooks: the feed's highest seq as its FeedWatcher last told, and how to stop listening. */
  const watched = new Map<string, { highest: number; stop: () => void }>();
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let lastRefresh = -Infinity;
  const inFlight = new Set<Promise<void>>();
  let abort = new AbortController();

  /**
   * The tenants whose webhooks to look at: those noted to have some (one read, shared by every
   * process) and those open in this process (a webhook made since is noted here). Every tenant is
   * looked at only once per data set, the first time no note exists.
   */
  async function candidates(): Promise<Map<string, TenantDb>> {
    let noted = await o.tenants.webhookTenants();
    if (!noted) {
      for (const clientDb of await o.tenants.list()) {
        const tenant = await o.tenants.get(clientDb).catch(() => undefined);
        if (tenant && (await listWebhooks(tenant, 'active').catch(() => [])).length > 0) await o.tenants.noteWebhooks(clientDb, true);
      }
      await o.tenants.noteWebhooks('', true);
      noted = (await o.tenants.webhookTenants()) ?? new Set();
    }
    notedTenants = noted;
    const found = new Map((await o.tenants.opened()).map((t) => [t.key, t] as const));
    for (const clientDb of noted) {
      if (clientDb === '' || found.has(clientDb)) continue;
      const tenant = await o.tenants.get(clientDb).catch(() => undefined);
      if (tenant) found.set(clientDb, tenant);
    }
    return found;
  }

  async function refresh(): Promise<void> {
    const next = new Map<string, Known>();
    for (const [clientDb, tenant] of await candidates()) {
      // One tenant that cannot be read (being migrated, refused) keeps the others going; its known webhooks stay.
      try {
        const active = await listWebhooks(tenant, 'active');
        if (active.length > 0 !== notedTenants.has(clientDb)) await o.tenants.noteWebhooks(clientDb, active.length > 0);
        for (const webhook of active) {
          const k = `${clientDb}\n${webhook.id}`;
          const old = known.get(k);
          next.set(k, old ? Object.assign(old, { webhook: old.busy ? old.webhook : webhook }) : { tenant, clientDb, webhook, busy: false });
        }
      } catch (err) {
        o.logger.error({ err, tenant: clientDb }, 'webhooks of a tenant could not be read');
        for (const [k, w] of known) if (w.clientDb === clientDb) next.set(k, w);
      }
    }
    for (const [k, w] of known) if (!next.has(k)) o.metrics.forget(w.clientDb, w.webhook.id);
    known = next;
    watch(new Map([...next.values()].map((w) => [w.clientDb, w.tenant])));
  }

  /** Follows the feeds of exactly these tenants: the poll is shared with the process's event streams. */
  function watch(tenants: Map<string, TenantDb>): void {
    for (const [clientDb, w] of watched)
      if (!tenants.has(clientDb)) {
        w.stop();
        watched.delete(clientDb);
      }
    for (const [clientDb, tenant] of tenants) {
      if (watched.has(clientDb)) continue;
      const entry = { highest: -1, stop: () => {} };
      watched.set(clientDb, entry);
      entry.stop = feedWatcher(tenant).listen((highest) => {
        entry.highest = highest;
        if (running) void tick().catch((err) => o.logger.error({ err }, 'webhook poll failed'));
      });
    }
  }

  /** Sends what the webhook has not had yet, while it succeeds and the lease holds. */
  async function run(w: Known): Promise<void> {
    let webhook = await claimWebhook(w.tenant, w.webhook.id, me, now(), now() + LEASE_MS);
    if (!webhook) return;
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
      known.delete(`${w.clientDb}\n${webhook.id}`);
      o.metrics.forget(w.clientDb, webhook.id);
    } else if (attempts === 1) o.logger.warn(log, 'webhook failing: retrying with backoff');
  }

  async function tick(): Promise<void> {
    if (now() - lastRefresh >= refreshMs) {
      lastRefresh = now();
      await refresh();
    }
    for (const w of known.values()) {
      if (!running) return;
      if (w.busy) continue;
      const end = watched.get(w.clientDb)?.highest ?? -1;
      if (end < 0) continue; // its feed not read yet
      o.metrics.lag(w.clientDb, w.webhook.id, Math.max(end - w.webhook.position, 0));
      if (end <= w.webhook.position) continue;
      if (w.webhook.nextAttemptAt !== null && w.webhook.nextAttemptAt > now()) continue;
      w.busy = true;
      const task = run(w)
        .catch((err) => o.logger.error({ err, tenant: w.clientDb, webhook: w.webhook.id }, 'webhook dispatch failed'))
        .finally(() => {
          w.busy = false;
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
      watch(new Map());
      for (const w of known.values()) await releaseWebhook(w.tenant, w.webhook.id, me).catch(() => {});
    },
  };
}
