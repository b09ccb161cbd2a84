import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { describeEachDatabase, M } from '../support/harness.ts';
import { tableShape } from '../support/resources-dir.ts';
import { insertRecords, workOrder } from '../support/rows.ts';

describeEachDatabase('composite indexes from declared query patterns', (h) => {
  it('work_orders gets its department_id + status index, and searches on both still answer right', async () => {
    // PostgreSQL's index entries do not carry the id, so its pattern index ends with id too.
    const name = h().db === 'sqlite' ? 'work_orders_department_id_status_deleted_idx' : 'work_orders_department_id_status_deleted_id_idx';
    expect((await tableShape(h(), 'work_orders')).indexes).toContain(name);
    const ids = await insertRecords(h(), 'work_orders', [
      workOrder({ department_id: 5, status: 'open' }),
      workOrder({ department_id: 5, status: 'closed' }),
      workOrder({ department_id: 6, status: 'open' }),
      workOrder({ department_id: 5, status: 'open' }),
    ]);
    const r = await h().get(`${M}/work_orders?department_id=5&status=open`);
    expect(r.body.map((w: { id: number }) => w.id)).toEqual([ids[0], ids[3]]);
  });

  it("on SQLite without statistics, a filtered search is still planned on its filter's index, not on every live record", async (ctx) => {
    if (h().db !== 'sqlite') ctx.skip(); // PostgreSQL's autovacuum analyzes by itself
    const t = (await h().service.tenants.get('demo.main'))!;
    await sql`with recursive n (value) as (select 1 union all select value + 1 from n where value < 2000)
      insert into work_orders (created, updated, deleted, department_id, work_order_type_id, work_order_type_group_id, priority, status)
      select '2026-01-01', '2026-01-01T00:00:00.000Z', 0, value % 50, 1, 1, value % 5, 'open' from n`.execute(t.db);
    // As a table is until ANALYZE or PRAGMA optimize first sees it grown (the statistics tables
    // may not exist yet at all).
    const { rows } = await sql<{ name: string }>`select name from sqlite_master where name in ('sqlite_stat1', 'sqlite_stat4')`.execute(
      t.db,
    );
    for (const { name } of rows) await sql`delete from ${sql.table(name)} where tbl = 'work_orders'`.execute(t.db);
    await sql`analyze sqlite_schema`.execute(t.db);
    // The shape of a snapshot's WHERE (values written +?, see engine/dialects/sqlite/opaque-values.ts).
    const plan = async (where: string) =>
      (await sql.raw<{ detail: string }>(`explain query plan select id from work_orders where ${where} order by id`).execute(t.db)).rows
        .map((r) => r.detail)
        .join(' | ');
    expect(await plan('department_id = +7 and deleted = +0')).toMatch(/INDEX work_orders_department_id_(idx|status_deleted_idx)/);
    expect(await plan('priority = +2 and deleted = +0')).toMatch(/INDEX work_orders_priority_idx/);
  });
});
