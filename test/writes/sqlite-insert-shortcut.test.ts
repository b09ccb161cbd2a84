import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { M, startHarness } from '../support/harness.ts';
import { WORK_ORDER } from '../support/fixtures.ts';

// adapters/sqlite/statements.ts runs a one-row INSERT ... RETURNING * as the INSERT and a SELECT
// of its row; it recognises the statement by its text, so a change in the SQL the engine compiles
// for a create would turn it off without failing anything else.
let started: Awaited<ReturnType<typeof startHarness>>;
const prepared: string[] = [];
beforeAll(async () => {
  started = await startHarness('sqlite');
  const prepare = Database.prototype.prepare;
  vi.spyOn(Database.prototype, 'prepare').mockImplementation(function (this: Database.Database, source: string) {
    prepared.push(source);
    return prepare.call(this, source);
  });
});
afterAll(async () => {
  vi.restoreAllMocks();
  await started?.stop();
});

it('a create on SQLite runs as an INSERT and a SELECT of the row it wrote', async () => {
  const h = started.harness;
  const made = await h.post(`${M}/work_orders`, WORK_ORDER);
  expect(made.status).toBe(201);
  expect(prepared).toContain('select * from "work_orders" where rowid = ?');
});
