import { describe, expect, it } from 'vitest';
import { date, defineResource, integer, string } from '../../engine/define.ts';
import notes from '../../resources/notes.ts';
import serviceRequests from '../../resources/service-requests.ts';
import workOrders from '../../resources/work-orders.ts';
import { DATABASES, M, type Harness } from '../support/harness.ts';
import { WORK_ORDER } from '../support/fixtures.ts';
import { DEFAULTS, openDemo, populated, post, withWorkOrderFields, type Definitions } from '../support/changed-definitions.ts';
import { rawQuery, schemaDump } from '../support/schema-dump.ts';

/** Work orders with and without a description and a priority, one soft-deleted; a soft-deleted service request. */
async function fill(h: Harness) {
  await post(h, `${M}/work_orders`, { ...WORK_ORDER, description: 'pump', priority: 2, status: 'in progress' });
  await post(h, `${M}/work_orders`, { ...WORK_ORDER, status: 'ééé' });
  const gone = await post(h, `${M}/work_orders`, { ...WORK_ORDER, description: 'gone' });
  expect((await h.del(`${M}/work_orders/${gone.id}`)).status).toBe(204);
  const sr = await post(h, `${M}/service_requests`, { description: 'only a deleted one' });
  expect((await h.del(`${M}/service_requests/${sr.id}`)).status).toBe(204);
}

const REFUSED: [string, Definitions, RegExp[]][] = [
  [
    'a new required field on a table with rows',
    withWorkOrderFields({ serial: string({ required: true }) }),
    [/resource work_orders: field serial: is new and required/],
  ],
  [
    'a new required field on a table whose only row is soft-deleted',
    [workOrders, notes, defineResource({ ...serviceRequests, fields: { ...serviceRequests.fields, code: integer({ required: true }) } })],
    [/resource service_requests: field code: is new and required, but the table has rows \(soft-deleted ones count\)/],
  ],
  [
    'a changed kind',
    withWorkOrderFields({ priority: string({ nullable: true }) }),
    [/resource work_orders: field priority: kind string does not fit its column priority/],
  ],
  // On SQLite strings and dates are both text columns: the values held tell the change.
  [
    'a string field changed to a date',
    withWorkOrderFields({ description: date({ nullable: true }) }),
    [/resource work_orders: field description: kind date does not fit/],
  ],
  [
    'a field made required while rows hold null',
    withWorkOrderFields({ description: string({ required: true }) }),
    [/resource work_orders: field description: is required, but rows hold null/],
  ],
  [
    'a field made not nullable while rows hold null',
    withWorkOrderFields({ priority: integer({ default: 3 }) }),
    [/resource work_orders: field priority: is not nullable, but rows hold null/],
  ],
  [
    'a maxLength lowered below a stored value',
    withWorkOrderFields({ status: string({ default: 'open', maxLength: 4, filterable: true }) }),
    [/resource work_orders: field status: maxLength 4 is below/],
  ],
  [
    'several changes at once, each on its own line',
    withWorkOrderFields({ serial: string({ required: true }), priority: string({ nullable: true }) }),
    [/^ {2}resource work_orders: field priority: kind string/m, /^ {2}resource work_orders: field serial: is new and required/m],
  ],
];

for (const db of DATABASES)
  describe(`changing a definition never loses or hides data [${db}]`, () => {
    for (const [what, resources, lines] of REFUSED)
      it(`refuses ${what} at the start, naming resource and field, and leaves the schema as it was`, async () => {
        const { place, cleanup } = await populated(db, fill);
        try {
          const before = await schemaDump(place);
          const e = await openDemo(place, resources);
          expect(e?.message).toMatch(/^tenant demo\.main: migration refused, nothing changed:\n/);
          for (const l of lines) expect(e?.message).toMatch(l);
          expect(e!.message.split('\n')).toHaveLength(lines.length + 1);
          expect(await schemaDump(place)).toEqual(before);
          // The definitions as they were still start.
          expect(await openDemo(place, DEFAULTS)).toBeUndefined();
        } finally {
          await cleanup();
        }
      });

    it('takes a maxLength no stored value passes, counting characters (ééé is 3)', async () => {
      const { place, cleanup } = await populated(db, fill);
      try {
        const shorter = withWorkOrderFields({ status: string({ default: 'open', maxLength: 11, filterable: true }) });
        expect(await openDemo(place, shorter)).toBeUndefined();
        const three = withWorkOrderFields({ status: string({ default: 'x', maxLength: 3, filterable: true }) });
        // 'in progress' and 'open' are longer than 3 ...
        expect((await openDemo(place, three))?.message).toMatch(/field status: maxLength 3/);
        await rawQuery(place, `update work_orders set status = 'ééé'`);
        // ... 'ééé' is not, though it takes 6 bytes.
        expect(await openDemo(place, three)).toBeUndefined();
      } finally {
        await cleanup();
      }
    });

    it('a field made required once no row holds null is taken', async () => {
      const { place, cleanup } = await populated(db, fill);
      try {
        await rawQuery(place, `update work_orders set description = 'filled' where description is null`);
        expect(await openDemo(place, withWorkOrderFields({ description: string({ required: true }) }))).toBeUndefined();
      } finally {
        await cleanup();
      }
    });
  });
