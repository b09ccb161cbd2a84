import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { RESOURCES_DIR } from '../../server/load-resources.ts';
import { sqliteDatabase } from '../../engine/dialects/sqlite/dialect.ts';
import type { Harness } from './harness.ts';

/** The engine's definition module as an absolute URL, for definition files outside the checkout. */
export const DEFINE_URL = pathToFileURL(join(RESOURCES_DIR, '..', 'engine', 'define.ts')).href;

/**
 * A copy of the real resources/ folder in a temporary directory, plus the given extra files
 * (name -> source). Relative imports of the engine are pointed at the real engine.
 */
export function resourcesCopy(extra: Record<string, string>): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'mrs-resources-'));
  cpSync(RESOURCES_DIR, dir, { recursive: true });
  for (const file of readdirSync(dir)) {
    const path = join(dir, file);
    writeFileSync(path, readFileSync(path, 'utf8').replaceAll("'../engine/define.ts'", `'${DEFINE_URL}'`));
  }
  for (const [file, source] of Object.entries(extra)) writeFileSync(join(dir, file), source);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Column names and index names of a table in the demo tenant's database, as the database reports them. */
export async function tableShape(h: Harness, table: string): Promise<{ columns: string[]; indexes: string[] }> {
  const t = await h.service.tenants.get('demo.main');
  if (!t) throw new Error('no demo tenant');
  if (t.flavour === sqliteDatabase.flavour) {
    const columns = await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(t.db);
    const indexes = await sql<{ name: string }>`select name from pragma_index_list(${table})`.execute(t.db);
    return { columns: columns.rows.map((r) => r.name).sort(), indexes: indexes.rows.map((r) => r.name).sort() };
  }
  const columns = await sql<{ name: string }>`select column_name as name from information_schema.columns
    where table_schema = ${t.schema} and table_name = ${table}`.execute(t.db);
  const indexes = await sql<{ name: string }>`select indexname as name from pg_indexes
    where schemaname = ${t.schema} and tablename = ${table}`.execute(t.db);
  return { columns: columns.rows.map((r) => r.name).sort(), indexes: indexes.rows.map((r) => r.name).sort() };
}
