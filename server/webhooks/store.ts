import { sql, type RawBuilder } from 'kysely';
import { randomBytes } from 'node:crypto';
import type { TenantDb } from '../../engine/dialects/types.ts';
import { EVENTS_TABLE } from '../../engine/events/event-log.ts';
import { tableRef } from '../../engine/dialects/table-ref.ts';
import { newSecret } from './signature.ts';

/** The rows of `mrs_webhooks` (server/migrations/011-webhooks.ts) and every statement on them. */

export type WebhookState = 'active' | 'disabled';

export interface Webhook {
  readonly id: string;
  readonly url: string;
  readonly secret: string;
  /** Only events of these collections (empty: every collection). */
  readonly collections: readonly string[];
  /** The feed seq delivered up to. */
  readonly position: number;
  readonly state: WebhookState;
  readonly lastError: string | null;
  /** Since when deliveries fail (epoch ms; null while they succeed). */
  readonly failingSince: number | null;
  readonly nextAttemptAt: number | null;
  /** Failed attempts in a row. */
  readonly attempts: number;
  readonly created: string;
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

const webhookOf = (r: Record<string, unknown>): Webhook => ({
  id: r.id as string,
  url: r.url as string,
  secret: r.secret as string,
  collections: JSON.parse(r.collections as string) as string[],
  position: Number(r.position),
  state: r.state as WebhookState,
  lastError: (r.last_error as string | null) ?? null,
  failingSince: num(r.failing_since),
  nextAttemptAt: num(r.next_attempt_at),
  attempts: Number(r.attempts),
  created: r.created as string,
});

/** Stores a webhook starting after the feed's current end; the returned secret is shown once. */
export async function createWebhook(t: TenantDb, url: string, collections: readonly string[]): Promise<Webhook> {
  const row = {
    id: `wh_${randomBytes(12).toString('base64url')}`,
    url,
    secret: newSecret(),
    collections: JSON.stringify([...collections]),
    position: await t.events.highest(t),
    state: 'active',
    attempts: 0,
    created: new Date().toISOString(),
  };
  await t.db.insertInto('mrs_webhooks').values(row).execute();
  return webhookOf(row);
}

export async function listWebhooks(t: TenantDb, state?: WebhookState): Promise<Webhook[]> {
  let q = t.db.selectFrom('mrs_webhooks').selectAll().orderBy('created').orderBy('id');
  if (state) q = q.where('state', '=', state);
  return (await q.execute()).map(webhookOf);
}

/** Whether it existed. */
export async function deleteWebhook(t: TenantDb, id: string): Promise<boolean> {
  const r = await t.db.deleteFrom('mrs_webhooks').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** Active again from its kept position, retried at once; whether it existed. */
export async function enableWebhook(t: TenantDb, id: string): Promise<boolean> {
  const r = await t.db
    .updateTable('mrs_webhooks')
    .set({ state: 'active', attempts: 0, failing_since: null, next_attempt_at: null, last_error: null })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * Takes the webhook for `owner` until `until` when it is active, due, and nobody else holds it:
 * one statement, no session state (works through a transaction pooler). The row as claimed, or
 * undefined when another process holds it or it is not due.
 */
export async function claimWebhook(t: TenantDb, id: string, owner: string, now: number, until: number): Promise<Webhook | undefined> {
  const row = await t.db
    .updateTable('mrs_webhooks')
    .set({ lease_owner: owner, lease_until: until })
    .where('id', '=', id)
    .where('state', '=', 'active')
    .where((eb) => eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', now)]))
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now), eb('lease_owner', '=', owner)]))
    .returningAll()
    .executeTakeFirst();
  return row ? webhookOf(row) : undefined;
}

/** Lets the lease go (on stop), so another process takes over at once. */
export async function releaseWebhook(t: TenantDb, id: string, owner: string): Promise<void> {
  await t.db
    .updateTable('mrs_webhooks')
    .set({ lease_owner: null, lease_until: null })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .execute();
}

/** Records delivery up to `position` (only while `owner` holds the lease); whether it did. */
export async function advanceWebhook(t: TenantDb, id: string, owner: string, position: number, leaseUntil: number): Promise<boolean> {
  const r = await t.db
    .updateTable('mrs_webhooks')
    .set({ position, attempts: 0, failing_since: null, next_attempt_at: null, last_error: null, lease_until: leaseUntil })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('position', '<', position)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Records a failed attempt: when to try again, and whether the webhook is given up (disabled). */
export async function failWebhook(
  t: TenantDb,
  id: string,
  owner: string,
  failure: { error: string; failingSince: number; attempts: number; nextAttemptAt: number; disable: boolean },
): Promise<void> {
  await t.db
    .updateTable('mrs_webhooks')
    .set({
      last_error: failure.error.slice(0, 500),
      failing_since: failure.failingSince,
      attempts: failure.attempts,
      next_attempt_at: failure.nextAttemptAt,
      ...(failure.disable ? { state: 'disabled', lease_owner: null, lease_until: null } : {}),
    })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .execute();
}

/** What a tenant's webhooks ask of the dispatcher: none is active, none is due, or one is due. */
export type WebhookWork = 'none' | 'idle' | 'due';

/**
 * A select of one row, `active` and `due`, over a tenant's tables (in its schema, if it has one):
 * whether it has an active webhook, and whether one is due: behind its feed (events written after
 * its position, numbered or not yet) and not waiting out a backoff. Stores ask it of many tenants
 * in one statement, none of them opened.
 */
export function webhookWorkSql(t: Pick<TenantDb, 'schema' | 'events'>, now: number): RawBuilder<{ active: unknown; due: unknown }> {
  const hooks = tableRef(t, 'mrs_webhooks');
  return sql`select exists (select 1 from ${hooks} where state = 'active') as active,
    exists (select 1 from ${hooks} w where w.state = 'active' and (w.next_attempt_at is null or w.next_attempt_at <= ${now})
      and exists (select 1 from ${tableRef(t, EVENTS_TABLE)} where ${t.events.writtenAfter(t, sql.ref('w.position'))})) as due`;
}

/** The answer of webhookWorkSql as a WebhookWork (booleans come back as 0 and 1 from SQLite). */
export const webhookWorkOf = (row: { active: unknown; due: unknown }): WebhookWork =>
  Number(row.due) ? 'due' : Number(row.active) ? 'idle' : 'none';
