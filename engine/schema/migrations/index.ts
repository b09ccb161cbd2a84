import type { Migration } from 'kysely';
import type { TenantDb } from '../../dialects/types.ts';
import { engineMeta } from './001-engine-meta.ts';
import { cursors } from './003-cursors.ts';
import { cursorExpiryHead } from './004-cursor-expiry-head.ts';
import { cursorRowsUncompressed } from './005-cursor-rows-uncompressed.ts';
import { cursorIdsArray } from './006-cursor-ids-array.ts';
import { events } from './008-events.ts';
import { cursorChangeSeq } from './009-cursor-change-seq.ts';
import { idempotencyKeys } from './010-idempotency-keys.ts';
import { eventPositions } from './012-event-positions.ts';
import { cursorDeltas } from './013-cursor-deltas.ts';
import { lazySnapshots } from './014-lazy-snapshots.ts';
import { eventFinding } from './015-event-finding.ts';

/**
 * The engine's own tables in a tenant database, in order (names are sorted by Kysely: keep the
 * numeric prefix; 002, 007 and 011 are the service's, server/migrations/). Every database the engine serves
 * gets these, embedded ones too.
 */
export const engineMigrations = (t: TenantDb): Record<string, Migration> => ({
  '001-engine-meta': engineMeta,
  '003-cursors': cursors(t),
  '004-cursor-expiry-head': cursorExpiryHead,
  '005-cursor-rows-uncompressed': cursorRowsUncompressed(t),
  '006-cursor-ids-array': cursorIdsArray(t),
  '008-events': events(t),
  '009-cursor-change-seq': cursorChangeSeq,
  '010-idempotency-keys': idempotencyKeys,
  '012-event-positions': eventPositions(t),
  '013-cursor-deltas': cursorDeltas(t),
  '014-lazy-snapshots': lazySnapshots,
  '015-event-finding': eventFinding(t),
});
