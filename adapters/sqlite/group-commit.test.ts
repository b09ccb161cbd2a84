import Database from 'better-sqlite3';
import { Kysely, sql, type QueryResult } from 'kysely';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GroupCommitKysely, GroupCommitSqliteDialect } from './group-commit.ts';
import { writeThenOf } from '../../engine/sql/write-then.ts';

let dir: string;
let file: string;
let dialect: GroupCommitSqliteDialect;
let db: Kysely<any>;
/** Another connection to the file: it sees only what is committed. */
let other: Database.Database;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mrs-group-commit-'));
  file = join(dir, 't.sqlite');
  const setup = new Database(file);
  setup.pragma('journal_mode = WAL');
  setup.exec(`create table t (id integer primary key, v text unique);
    create table parent (id integer primary key);
    create table child (id integer primary key, parent_id integer references parent (id) deferrable initially deferred);`);
  setup.close();
  const database = new Database(file);
  database.pragma('foreign_keys = on');
  database.pragma('busy_timeout = 5000'); // the driver sets its own
  dialect = new GroupCommitSqliteDialect(database);
  db = new GroupCommitKysely(dialect); // as openSqlite makes it
  other = new Database(file, { readonly: true });
});

afterEach(async () => {
  other.close();
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const committedValues = () => other.prepare('select v from t order by v').pluck().all() as string[];
const insert = (v: string) => db.insertInto('t').values({ v }).execute();

describe('SQLite group commit', () => {
  it('writes sent together share one commit, and each is answered only once it is committed', async () => {
    const seenAtAnswer: string[][] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => insert(`v${String(i).padStart(2, '0')}`).then(() => seenAtAnswer.push(committedValues()))),
    );
    expect(committedValues()).toHaveLength(20);
    // Every answer came after the commit that holds its write: the other connection saw all 20.
    for (const seen of seenAtAnswer) expect(seen).toHaveLength(20);
    expect(dialect.stats()).toEqual({ groups: 1, writes: 20, readBatches: 0, reads: 0 });
  });

  it('a transaction that fails is undone alone; the others of its group are kept', async () => {
    const results = await Promise.allSettled([
      db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ v: 'a' }).execute();
        await trx.insertInto('t').values({ v: 'b' }).execute();
      }),
      db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ v: 'c' }).execute();
        throw new Error('refused');
      }),
      insert('d'),
      insert('a'), // unique: fails alone
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    expect(committedValues()).toEqual(['a', 'b', 'd']);
    expect(dialect.stats().groups).toBe(1);
  });

  it("runs a transaction's statements on the driver, refuses them once it ended, and still takes Kysely's settings", async () => {
    let kept: Kysely<any> | undefined;
    await db.transaction().execute(async (trx) => {
      expect(trx.isTransaction).toBe(true);
      await trx.insertInto('t').values({ v: 'built' }).execute();
      await trx.executeQuery(trx.insertInto('t').values({ v: 'compiled' }).compile());
      kept = trx;
    });
    expect(committedValues()).toEqual(['built', 'compiled']);
    // A statement through a transaction that ended would run outside any: refused.
    await expect(kept!.insertInto('t').values({ v: 'late' }).execute()).rejects.toThrow(/already ended/);
    await expect(kept!.executeQuery(kept!.insertInto('t').values({ v: 'late' }).compile())).rejects.toThrow(/already ended/);
    // Settings give Kysely's own builder, which runs on the same driver.
    await db
      .transaction()
      .setAccessMode('read write')
      .execute((trx) => trx.insertInto('t').values({ v: 'set' }).execute());
    expect(committedValues()).toEqual(['built', 'compiled', 'set']);
  });

  it('a write and the statement made from its result are kept together; when the second fails, its whole group fails', async () => {
    const writeThen = writeThenOf(db)!;
    const write = (v: string) => db.insertInto('t').values({ v }).returning('v').compile();
    const then = (suffix: string) => (r: QueryResult<unknown>) =>
      db
        .insertInto('t')
        .values({ v: `${(r.rows[0] as { v: string }).v}${suffix}` })
        .compile();
    await writeThen(write('a'), then('+event'));
    expect(committedValues()).toEqual(['a', 'a+event']);
    // Sent together: b and c are one group; c's second statement fails (v is unique), so neither
    // is kept. d's maker of its second statement throws: nothing of d is kept either.
    const results = await Promise.allSettled([
      db.executeQuery(db.insertInto('t').values({ v: 'b' }).compile()),
      writeThen(write('c'), () => db.insertInto('t').values({ v: 'a' }).compile()),
      writeThen(write('d'), () => {
        throw new Error('no event for d');
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(committedValues()).toEqual(['a', 'a+event']);
    // The connection goes on; a failing first statement is undone alone, as any lone write.
    await writeThen(write('e'), then('+event'));
    await expect(writeThen(write('a'), then('never'))).rejects.toThrow(/UNIQUE/);
    await insert('f');
    expect(committedValues()).toEqual(['a', 'a+event', 'e', 'e+event', 'f']);
  });

  it('a write may be followed by several statements, kept with it in order, or by none', async () => {
    const writeThen = writeThenOf(db)!;
    const write = (v: string) => db.insertInto('t').values({ v }).returning('v').compile();
    const value = (v: string) => db.insertInto('t').values({ v }).compile();
    await writeThen(write('g'), () => [value('g+1'), value('g+2')]);
    // A write whose statement wrote nothing (INSERT ... SELECT ... WHERE false) has nothing to follow it.
    const none = await writeThen(
      db
        .insertInto('t')
        .columns(['v'])
        .expression(db.selectNoFrom(sql<string>`'never'`.as('v')).where(sql<boolean>`0`))
        .returning('v')
        .compile(),
      (r) => (r.rows.length ? [value('never+1')] : []),
    );
    expect(none.rows).toEqual([]);
    expect(committedValues()).toEqual(['g', 'g+1', 'g+2']);
    // The second of two fails (v is unique): the write and the first after it are undone with it.
    await expect(writeThen(write('h'), () => [value('h+1'), value('g')])).rejects.toThrow(/UNIQUE/);
    expect(committedValues()).toEqual(['g', 'g+1', 'g+2']);
  });

  it('a read never sees a transaction still in progress', async () => {
    let inside!: () => void;
    const paused = new Promise<void>((r) => (inside = r));
    let resume!: () => void;
    const trx = db.transaction().execute(async (t) => {
      await t.insertInto('t').values({ v: 'x' }).execute();
      inside();
      await new Promise<void>((r) => (resume = r));
    });
    await paused;
    const read = db.selectFrom('t').select('v').execute();
    let readDone = false;
    void read.then(() => (readDone = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(readDone).toBe(false); // it waits for the connection
    resume();
    await trx;
    expect((await read).map((r) => r.v)).toEqual(['x']);
  });

  it("compiled statements run by executeQuery (the engine's prepared ones) keep every guarantee of the group", async () => {
    const insertCompiled = (v: string) => db.executeQuery(db.insertInto('t').values({ v }).compile());
    const readCompiled = () => db.executeQuery<{ v: string }>(db.selectFrom('t').select('v').orderBy('v').compile());
    const direct = vi.spyOn(dialect, 'alone'); // the path that skips Kysely's connection machinery
    const seenAtAnswer: number[] = [];
    const reads: Promise<unknown>[] = [];
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => {
        const write = insertCompiled(`c${i}`).then(() => seenAtAnswer.push(committedValues().length));
        reads.push(readCompiled().then((r) => seenAtAnswer.push(r.rows.length && committedValues().length)));
        return write;
      }),
    );
    await Promise.all(reads);
    // One group, one batch of reads; every write and every read that saw it answered only after its commit.
    expect(dialect.stats()).toEqual({ groups: 1, writes: 10, readBatches: 1, reads: 10 });
    expect(seenAtAnswer).toEqual(Array(20).fill(10));
    expect(direct).toHaveBeenCalledTimes(20);
    // A failed group fails its compiled writes and the compiled reads that saw them.
    const failed = await Promise.allSettled([
      insertCompiled('gone'),
      db.executeQuery(db.insertInto('child').values({ parent_id: 42 }).compile()),
      readCompiled(),
    ]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    // In a transaction, executeQuery runs on the transaction's connection.
    await db.transaction().execute(async (trx) => {
      await trx.executeQuery(trx.insertInto('t').values({ v: 'in-trx' }).compile());
      expect(
        (await trx.executeQuery<{ v: string }>(trx.selectFrom('t').select('v').where('v', '=', 'in-trx').compile())).rows,
      ).toHaveLength(1);
    });
    expect(committedValues()).toContain('in-trx');
    expect(direct).toHaveBeenCalledTimes(23); // the transaction's statements went through Kysely
    expect(committedValues()).not.toContain('gone');
  });

  it('lone reads sent together run as one batch, each with its own answer or its own error', async () => {
    await insert('a');
    const before = dialect.stats();
    const value = (json: string) => db.executeQuery<{ v: unknown }>(sql`select json_extract(${json}, '$.v') as v`.compile(db));
    const answers = await Promise.allSettled([
      value('{"v":1}'),
      value('not json'),
      value('{"v":3}'),
      db.selectFrom('t').select('v').execute(),
    ]);
    expect(answers.map((a) => (a.status === 'fulfilled' ? a.value : 'failed'))).toEqual([
      { rows: [{ v: 1 }] },
      'failed',
      { rows: [{ v: 3 }] },
      [{ v: 'a' }],
    ]);
    expect((answers[1] as PromiseRejectedResult).reason.message).toMatch(/malformed JSON/);
    expect(dialect.stats()).toMatchObject({ readBatches: before.readBatches + 1, reads: before.reads + 4 });
    // A read sent once a write was answered sees it; reads of a later turn are another batch.
    await insert('b');
    expect((await db.selectFrom('t').select('v').orderBy('v').execute()).map((r) => r.v)).toEqual(['a', 'b']);
    expect(dialect.stats()).toMatchObject({ readBatches: before.readBatches + 2, reads: before.reads + 5 });
  });

  it('what was sent before the database is closed is carried out and answered', async () => {
    const own = new GroupCommitKysely(new GroupCommitSqliteDialect(new Database(file)));
    await own.insertInto('t').values({ v: 'kept' }).execute();
    const sent = Promise.all([
      own.selectFrom('t').select('v').execute(),
      own.insertInto('t').values({ v: 'lone' }).execute(),
      own.transaction().execute((trx) => trx.insertInto('t').values({ v: 'in-trx' }).execute()),
    ]);
    await own.destroy();
    const [read] = await sent;
    expect(read).toEqual([{ v: 'kept' }]);
    expect(committedValues()).toEqual(['in-trx', 'kept', 'lone']);
  });

  it('when the commit fails every write of the group fails, nothing is kept, and a read that saw them fails too', async () => {
    const results = await Promise.allSettled([
      insert('kept?'),
      db.insertInto('child').values({ parent_id: 42 }).execute(), // checked only at COMMIT
      db.selectFrom('t').select('v').execute(),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    expect(committedValues()).toEqual([]);
    // The connection goes on.
    await insert('later');
    expect(committedValues()).toEqual(['later']);
  });

  it('when SQLite rolls the group back by itself, every answer still matches what was kept', async () => {
    // A raw ROLLBACK inside a transaction stands for SQLite ending the transaction on its own
    // (an I/O error, a full disk): the group's earlier writes are gone.
    const results = await Promise.allSettled([
      insert('a'),
      db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ v: 'b' }).execute();
        await sql`rollback`.execute(trx);
        throw new Error('the disk is full');
      }),
      insert('c'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect(committedValues()).toEqual(['c']);
  });

  it("waits for another connection's write lock without blocking the event loop", async () => {
    const holder = new Database(file);
    holder.prepare('begin immediate').run();
    holder.prepare("insert into t (v) values ('first')").run();
    const write = insert('second');
    let settled = false;
    void write.finally(() => (settled = true)).catch(() => undefined);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    // Counted in ticks, not milliseconds: a loaded machine delays timers, a blocked loop runs none.
    for (let i = 0; i < 500 && ticks <= 3; i++) await new Promise((r) => setTimeout(r, 10));
    expect(ticks).toBeGreaterThan(3);
    expect(settled).toBe(false);
    expect(committedValues()).toEqual([]);
    holder.prepare('commit').run();
    await write;
    clearInterval(timer);
    holder.close();
    expect(committedValues()).toEqual(['first', 'second']);
  });

  it('a PRAGMA runs outside any group: one that sets the connection takes effect while writes are pending', async () => {
    // foreign_keys cannot change inside a transaction (SQLite ignores the PRAGMA there). Sent
    // while a transaction holds the connection, the PRAGMA runs once it is handed over, with the
    // group still open: as an ordinary statement it would land in that group.
    let pragma!: Promise<unknown>;
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('t').values({ v: 'x' }).execute();
      pragma = sql`pragma foreign_keys = off`.execute(db);
    });
    await pragma;
    const [row] = (await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db)).rows;
    expect(row!.foreign_keys).toBe(0);
    expect(committedValues()).toEqual(['x']);
  });
});
