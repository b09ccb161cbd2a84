import { describe, expect, it } from 'vitest';
import { runCommand } from '../../bench/support/processes.ts';
import { loadConfig } from '../../server/config.ts';
import { seedWorkOrders } from '../../server/seed.ts';
import { createService } from '../../server/service.ts';
import { login } from '../support/auth.ts';
import { DEFAULTS } from '../support/changed-definitions.ts';
import { WORK_ORDER } from '../support/fixtures.ts';
import { M, VIA_PGBOUNCER } from '../support/harness.ts';
import { processPlace, releaseFolders, startServers, stopServers, withSite } from '../support/release-folders.ts';

/** The next release: description renamed to summary, a required site its step fills. */
const renamed = (source: string) =>
  withSite(source).replace('description: string({ nullable: true })', "summary: string({ nullable: true, renamedFrom: 'description' })");
const FILL_SITE = `export default {
  async up({ db }: { db: any }) {
    await db.updateTable('work_orders').set({ site: 'plant' }).execute();
  },
};
`;

interface Answer {
  status: number;
  text: string;
}

/** Reads and writes of every kind, round robin over the servers, until `done` says stop (at least 12). */
async function traffic(origins: string[], token: string, done: () => boolean): Promise<Answer[]> {
  const answers: Answer[] = [];
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  for (let i = 0; !done() || i < 12; i++) {
    const origin = origins[i % origins.length]!;
    const id = 1 + (i % 50);
    const calls = [
      () => fetch(`${origin}${M}/work_orders?$limit=5`, { headers }),
      () => fetch(`${origin}${M}/work_orders/${id}`, { headers }),
      () =>
        fetch(`${origin}${M}/work_orders`, { method: 'POST', headers, body: JSON.stringify({ ...WORK_ORDER, description: `made ${i}` }) }),
      () => fetch(`${origin}${M}/work_orders/${id}`, { method: 'PATCH', headers, body: JSON.stringify({ priority: i % 5 }) }),
    ];
    const r = await calls[i % calls.length]!();
    answers.push({ status: r.status, text: await r.text() });
  }
  return answers;
}

const expectNo500 = (answers: Answer[]) => {
  const odd = answers.filter((a) => ![200, 201, 503].includes(a.status) || (a.status === 503 && !/definitions-changed/.test(a.text)));
  expect(odd.map((a) => `${a.status} ${a.text}`)).toEqual([]);
};

describe.skipIf(VIA_PGBOUNCER)('a rolling deploy as separate processes [sqlite]', () => {
  it('three servers on the old definitions keep answering while mrs migrate renames a field and runs a step: never a 500', async () => {
    const place = await processPlace('sqlite');
    const before = releaseFolders();
    const next = releaseFolders({ workOrders: renamed, steps: { '0001-fill-site.ts': FILL_SITE } });
    let procs: Awaited<ReturnType<typeof startServers>>['procs'] = [];
    try {
      const seeding = await createService(loadConfig({ DATA_DIR: place.direct.dataDir }), { resources: DEFAULTS, steps: [] });
      let token: string;
      try {
        await seedWorkOrders(await seeding.tenants.create('demo.main'), seeding.engine.registry, 50);
        token = (await login(seeding, { clientDb: 'demo.main' })).token;
      } finally {
        await seeding.close();
      }
      const old = await startServers(3, { ...place.env, ...before.env });
      procs = old.procs;
      let migrated = false;
      const during = traffic(old.origins, token, () => migrated);
      await runCommand(['bin/mrs.js', 'migrate'], { ...place.env, ...next.env, PORT: '0' }).finally(() => (migrated = true));
      const answers = await during;
      expectNo500(answers);
      // After: what the old servers cannot serve any more is the 503; a server of the next release serves it.
      const after = await traffic(old.origins, token, () => true);
      expectNo500(after);
      expect(after.filter((a) => a.status === 503).length).toBeGreaterThan(0);
      const fresh = await startServers(1, { ...place.env, ...next.env });
      procs = [...procs, ...fresh.procs];
      const read = await fetch(`${fresh.origins[0]}${M}/work_orders/1`, { headers: { authorization: `Bearer ${token}` } });
      expect(read.status).toBe(200);
      const body = (await read.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ site: 'plant' });
      expect('summary' in body && !('description' in body)).toBe(true);
    } finally {
      await stopServers(procs);
      before.remove();
      next.remove();
      await place.cleanup();
    }
  }, 240_000);
});
