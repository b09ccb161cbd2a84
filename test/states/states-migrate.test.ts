import { describe, expect, it } from 'vitest';
import { string } from '../../engine/define.ts';
import { M, DATABASES, type Harness } from '../support/harness.ts';
import { WORK_ORDER } from '../support/fixtures.ts';
import { openDemo, populated, post, withWorkOrderFields } from '../support/changed-definitions.ts';
import { schemaDump } from '../support/schema-dump.ts';

/** Work orders in three statuses, one of them soft-deleted. */
async function fill(h: Harness) {
  await post(h, `${M}/work_orders`, WORK_ORDER);
  await post(h, `${M}/work_orders`, { ...WORK_ORDER, status: 'in progress' });
  const gone = await post(h, `${M}/work_orders`, { ...WORK_ORDER, status: 'ééé' });
  expect((await h.del(`${M}/work_orders/${gone.id}`)).status).toBe(204);
}

const status = (states: Record<string, readonly string[]>) =>
  withWorkOrderFields({ status: string({ default: 'open', filterable: true, states }) });

for (const db of DATABASES)
  describe(`giving a field states on a table with rows (SPEC 12) [${db}]`, () => {
    it('is refused while rows hold other values, naming resource, field and the values; nothing changes', async () => {
      const { place, cleanup } = await populated(db, fill);
      try {
        const before = await schemaDump(place);
        const e = await openDemo(place, status({ open: ['closed'], closed: [] }));
        expect(e?.message).toBe(
          'tenant demo.main: migration refused, nothing changed:\n  resource work_orders: field status: has states open, closed, but rows hold other values in column status: "in progress", "ééé"',
        );
        expect(await schemaDump(place)).toEqual(before);
        // Every value held declared as a state: taken.
        expect(await openDemo(place, status({ open: ['in progress'], 'in progress': ['ééé'], ééé: [] }))).toBeUndefined();
      } finally {
        await cleanup();
      }
    });

    it('takes a state or a transition added later', async () => {
      const first = status({ open: ['closed'], closed: [] });
      const { place, cleanup } = await populated(db, async (h) => void (await post(h, `${M}/work_orders`, WORK_ORDER)), first);
      try {
        expect(await openDemo(place, status({ open: ['closed', 'on_hold'], on_hold: ['open'], closed: ['open'] }))).toBeUndefined();
      } finally {
        await cleanup();
      }
    });
  });
