import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineResource, string } from '../../engine/define.ts';
import { clientTypes } from '../../server/client-types.ts';
import { loadResources } from '../../server/load-resources.ts';

/**
 * The generated types in a consumer project, checked by tsc: one that fits type-checks; one that
 * uses a field a changed definition removed fails, and so does one sending a state its field
 * does not have.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

const jobs = defineResource({
  name: 'jobs',
  linkedName: 'Jobs',
  fields: {
    title: string({ required: true, filterable: true }),
    stage: string({ states: { open: ['started'], started: ['done'], done: [] }, default: 'open', filterable: true }),
    work_order_id: string({ nullable: true }),
  },
});

const GOOD = `
import { createClient, type Search } from 'maintenance-records/client';
import { paths, type Collections } from './types.ts';

const client = createClient<Collections>({ baseUrl: 'http://127.0.0.1:1/v4_server/external/v1', apiKey: { key: 'k', clientDb: 'a.b', username: 'u' }, paths });
const orders = client.collection('work_orders');
export async function use(): Promise<void> {
  const search = await orders.search({ department_id: [1, 2], 'priority:gt': 2, 'status:like': 'op%', 'priority:null': false, $orderBy: 'created desc', $fields: ['status'], $linked: ['Notes'] });
  const first = search.first[0]!;
  const status: string | null = first.status;
  const note: string = first.linked.Notes[0]!.note;
  // @ts-expect-error: $fields narrows the record: priority was not asked for
  void first.priority;
  const made = await orders.create({ department_id: 1, work_order_type_id: 2, work_order_type_group_id: 3, description: null });
  const description: string | null = made.description;
  // @ts-expect-error: id is read-only, never in a body
  await orders.create({ id: 1, department_id: 1, work_order_type_id: 2, work_order_type_group_id: 3 });
  // @ts-expect-error: description is not filterable
  await orders.search({ description: 'x' });
  // @ts-expect-error: gt takes one value
  await orders.search({ 'priority:gt': [1, 2] });
  // @ts-expect-error: like is for strings
  await orders.search({ 'priority:like': '1%' });
  // @ts-expect-error: no such field to order by
  await orders.search({ $orderBy: 'colour desc' });
  const all: Search<Collections['work_orders']['record']> = await orders.search();
  const jobsOf = client.collection('jobs');
  const job = await jobsOf.create({ title: 'pump', stage: 'open' });
  const stage: 'open' | 'started' | 'done' = job.stage;
  await jobsOf.patch(job, { stage: 'started' });
  for await (const j of jobsOf.list({ stage: ['open', 'started'] })) void j.title;
  void [status, note, description, all, stage];
}
`;

const REMOVED_FIELD = `
import { createClient } from 'maintenance-records/client';
import { paths, type Collections } from './types-changed.ts';

const orders = createClient<Collections>({ baseUrl: 'http://127.0.0.1:1', paths }).collection('work_orders');
export async function use(): Promise<string | null> {
  return (await orders.get(1)).description;
}
`;

const BAD_STATE = `
import { createClient } from 'maintenance-records/client';
import { paths, type Collections } from './types.ts';

const jobs = createClient<Collections>({ baseUrl: 'http://127.0.0.1:1', paths }).collection('jobs');
export async function use(): Promise<void> {
  await jobs.patch(1, { stage: 'archived' });
}
`;

describe('the generated types in a consumer project', () => {
  let dir: string;
  let errors: string[];
  beforeAll(async () => {
    const shipped = await loadResources();
    const workOrders = shipped.find((r) => r.name === 'work_orders')!;
    const { description: _removed, ...fields } = workOrders.fields;
    const changed = shipped.map((r) => (r === workOrders ? defineResource({ ...workOrders, fields }) : r));
    // Inside the checkout for the package's own name to resolve; under node_modules, which no other test reads.
    mkdirSync(join(ROOT, 'node_modules/.cache'), { recursive: true });
    dir = mkdtempSync(join(ROOT, 'node_modules/.cache/mrs-client-consumer-'));
    writeFileSync(join(dir, 'types.ts'), clientTypes([...shipped, jobs]));
    writeFileSync(join(dir, 'types-changed.ts'), clientTypes([...changed, jobs]));
    writeFileSync(join(dir, 'good.ts'), GOOD);
    writeFileSync(join(dir, 'removed-field.ts'), REMOVED_FIELD);
    writeFileSync(join(dir, 'bad-state.ts'), BAD_STATE);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ extends: '../../../tsconfig.json', compilerOptions: { types: [] }, include: ['*.ts'] }),
    );
    const checked = await promisify(execFile)(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json')], { cwd: dir }).catch(
      (e: { stdout: string }) => ({ stdout: e.stdout }),
    );
    errors = checked.stdout.split('\n').filter((l) => /error TS/.test(l));
  }, 180_000);
  afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('type-checks a consumer that fits the definitions', () => {
    expect(errors.filter((e) => !/^(removed-field|bad-state)\.ts/.test(e))).toEqual([]);
  });

  it('fails a consumer using a field a changed definition removed', () => {
    expect(errors.filter((e) => e.startsWith('removed-field.ts'))).toEqual([
      expect.stringMatching(/removed-field\.ts\(7,\d+\): error TS2339: Property 'description' does not exist/),
    ]);
  });

  it('fails a consumer sending a state the field does not have', () => {
    expect(errors.filter((e) => e.startsWith('bad-state.ts'))).toEqual([
      expect.stringMatching(
        /bad-state\.ts\(7,\d+\): error TS2322: Type '"archived"' is not assignable to type '("(open|started|done)" \| ){3}undefined'/,
      ),
    ]);
  });
});
