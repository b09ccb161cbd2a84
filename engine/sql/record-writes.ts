import type { Kysely } from 'kysely';
import { compiledByKey } from '../compiled-queries.ts';

/**
 * A record's INSERT and UPDATE, compiled once per shape: the table and the columns written
 * (a PATCH writes the fields it was sent), so building the query is paid once per shape, not
 * per write. Both return the whole row.
 */
const writes = compiledByKey(500);

/** The columns' placeholders as a row object, for a builder's values() or set(). */
const rowOf = (columns: readonly string[], placeholders: readonly unknown[]) => Object.fromEntries(columns.map((c, i) => [c, placeholders[i]]));

export async function insertRow(db: Kysely<any>, table: string, row: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
  const columns = Object.keys(row);
  const { rows } = await writes<Record<string, unknown>>(
    db,
    `insert\0${table}\0${columns.join('\0')}`,
    (...p) => db.insertInto(table).values(rowOf(columns, p)).returningAll().compile(),
    ...columns.map((c) => row[c]),
  );
  return rows[0];
}

/**
 * `expected`: column values the row must still hold (a record's states as read), else nothing is
 * written and undefined is answered.
 */
export async function updateRow(
  db: Kysely<any>,
  table: string,
  id: number,
  row: Record<string, unknown>,
  expected: Record<string, unknown> = {},
): Promise<Record<string, unknown> | undefined> {
  const columns = Object.keys(row);
  const held = Object.keys(expected);
  const { rows } = await writes<Record<string, unknown>>(
    db,
    `update\0${table}\0${columns.join('\0')}\0\0${held.join('\0')}`,
    (...p) =>
      held
        .reduce((q, c, i) => q.where(c, '=', p[columns.length + 1 + i]), db.updateTable(table).set(rowOf(columns, p)).where('id', '=', p[columns.length]))
        .returningAll()
        .compile(),
    ...columns.map((c) => row[c]),
    id,
    ...held.map((c) => expected[c]),
  );
  return rows[0];
}
