import Database from 'better-sqlite3';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { startCheckpointer, type CheckpointReport } from '../../server/tenants/checkpointer.ts';
import { sqliteTenants } from '../../server/tenants/sqlite.ts';

/**
 * What is in the database file itself, without its write-ahead log: a copy of the file alone
 * holds only what a checkpoint has moved there. A copy taken while a checkpoint is writing the
 * file may be torn: that counts as -1 (not there yet), and callers poll.
 */
function rowsInFileAlone(file: string, table: string): number {
  const copy = `${file}.alone`;
  copyFileSync(file, copy);
  const db = new Database(copy, { readonly: true });
  try {
    if ((db.pragma('quick_check', { simple: true }) as string) !== 'ok') return -1;
    const exists = db.prepare(`select 1 from sqlite_master where type = 'table' and name = ?`).get(table);
    return exists ? (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n : 0;
  } catch {
    return -1;
  } finally {
    db.close();
    rmSync(copy, { force: true });
  }
}

const until = async (check: () => boolean, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('the SQLite checkpointer (a worker thread moves the log into the file)', () => {
  const dirs: string[] = [];
  const tmp = () => {
    const d = mkdtempSync(join(tmpdir(), 'mrs-checkpoint-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('checkpoints writes the writing connection never checkpoints itself', async () => {
    const file = join(tmp(), 'a.sqlite');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('create table t (id integer primary key, v text)');
    const insert = db.prepare('insert into t (v) values (?)');
    for (let i = 0; i < 200; i++) insert.run(`row ${i}`);
    expect(rowsInFileAlone(file, 't')).toBe(0);

    const reports: CheckpointReport[] = [];
    const checkpointer = startCheckpointer({ intervalMs: 10, onReport: (r) => reports.push(r) });
    checkpointer.watch(file);
    await until(() => reports.some((r) => r.checkpointed === r.log));
    expect(rowsInFileAlone(file, 't')).toBe(200);

    // Writes that come later are checkpointed too, while the writer keeps going.
    for (let i = 0; i < 50; i++) insert.run(`later ${i}`);
    await until(() => rowsInFileAlone(file, 't') === 250);
    await checkpointer.stop();
    db.close();
  });

  it('a failing file is reported and the others are still checkpointed', async () => {
    const dir = tmp();
    const failures: string[] = [];
    const checkpointer = startCheckpointer({ intervalMs: 10, onFailure: (f) => failures.push(f) });
    checkpointer.watch(join(dir, 'missing.sqlite'));
    const file = join(dir, 'b.sqlite');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('create table t (id integer primary key)');
    db.exec('insert into t default values');
    checkpointer.watch(file);
    await until(() => rowsInFileAlone(file, 't') === 1);
    // The failure comes as the worker's message, which may arrive after the other file is done.
    await until(() => failures.includes(join(dir, 'missing.sqlite')));
    expect(failures).toContain(join(dir, 'missing.sqlite'));
    await checkpointer.stop();
    db.close();
  });

  it("a served tenant's writes reach the database file while its connection only backstops", async () => {
    const dir = tmp();
    const store = sqliteTenants(dir, async (t) => {
      await sql`create table if not exists t (id integer primary key, v text)`.execute(t.db);
    });
    const tenant = await store.create('acme.main');
    const [threshold] = (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(tenant.db)).rows;
    expect(threshold!.wal_autocheckpoint).toBeGreaterThan(1000); // SQLite's default is 1000 pages
    for (let i = 0; i < 100; i++) await sql`insert into t (v) values (${`row ${i}`})`.execute(tenant.db);
    await until(() => rowsInFileAlone(join(dir, 'acme.main.sqlite'), 't') === 100);
    await store.close();
  });
});
