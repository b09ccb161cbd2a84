import { sql } from 'kysely';
import { expect } from 'vitest';
import { defineResource, type FieldDef } from '../../engine/define.ts';
import notes from '../../resources/notes.ts';
import serviceRequests from '../../resources/service-requests.ts';
import workOrders from '../../resources/work-orders.ts';
import type { MigrationStep } from '../../engine/schema/index.ts';
import { loadConfig } from '../../server/config.ts';
import { createService } from '../../server/service.ts';
import { startHarness, type DatabaseName, type Harness } from './harness.ts';
import type { DataPlace } from './schema-dump.ts';

/** Helpers for tests that change definitions between starts of the service on the same data. */

export type Definitions = readonly ReturnType<typeof defineResource>[];
export const DEFAULTS: Definitions = [workOrders, notes, serviceRequests];

/** The shipped definitions with work_orders' fields changed (undefined removes one). */
export const withWorkOrderFields = (fields: Record<string, FieldDef | undefined>, indexes = workOrders.indexes): Definitions => {
  const merged = Object.fromEntries(Object.entries({ ...workOrders.fields, ...fields }).filter(([, f]) => f !== undefined)) as Record<
    string,
    FieldDef
  >;
  return [defineResource({ ...workOrders, fields: merged, ...(indexes ? { indexes } : {}) }), notes, serviceRequests];
};

/** A team's step filling a new required `site` from each work order's department. */
export const fillSite: MigrationStep = {
  name: '0001-fill-site',
  up: async ({ db }) =>
    void (await db
      .updateTable('work_orders')
      .set({ site: sql`'plant-' || ${sql.ref('department_id')}` })
      .execute()),
};

/** Data made by a service on `resources`, then stopped: where it lives, and how to remove it. */
export async function populated(db: DatabaseName, fill: (h: Harness) => Promise<void>, resources: Definitions = DEFAULTS) {
  const first = await startHarness(db, { resources });
  try {
    await fill(first.harness);
  } finally {
    await first.stop(true);
  }
  return { place: { dataDir: first.dataDir, databaseUrl: first.databaseUrl } as DataPlace, cleanup: first.cleanup };
}

/** Opens the demo tenant as every start does (which migrates it); the error it stopped with, if any. */
export async function openDemo(place: DataPlace, resources: Definitions): Promise<Error | undefined> {
  const service = await createService(loadConfig({ DATA_DIR: place.dataDir, DATABASE_URL: place.databaseUrl }), {
    resources,
    onUnexpectedError: () => {},
  });
  try {
    await service.tenants.get('demo.main');
    return undefined;
  } catch (e) {
    return e as Error;
  } finally {
    await service.close();
  }
}

export const post = async (h: Harness, path: string, body: unknown) => {
  const r = await h.post(path, body);
  expect(r.status, r.text).toBe(201);
  return r.body as Record<string, any>;
};
