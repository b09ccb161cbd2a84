import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { loadConfig } from '../config.ts';
import { STEP_FILE } from '../definition-files.js';
import { UsageError } from './args.ts';
import { command, type Command } from './command.ts';

const TEMPLATE = `import { defineStep } from '../server/load-steps.ts';

/** What this step does to every tenant's rows, and why (it runs once per tenant, in its migration). */
export default defineStep({
  async up({ db }) {
    // e.g. await db.updateTable('work_orders').set({ site: 'main' }).where('site', 'is', null).execute();
  },
});
`;

/** The next step's file name in a folder: one past the highest sequence there, four digits at least. */
export function nextStepFile(files: readonly string[], name: string): string {
  const last = Math.max(0, ...files.filter((f) => STEP_FILE.test(f)).map((f) => Number(f.split('-')[0])));
  return `${String(last + 1).padStart(4, '0')}-${name}.ts`;
}

export const STEP_COMMANDS: Record<string, Command> = {
  'migrate:new': command(
    'migrate:new',
    "Write a new migration step in ./migrations (or MIGRATIONS_DIR; the next sequence number): a data step every tenant runs once, in its migration, before the definitions' rules are checked.",
    { args: ['name'] },
    async ([name]) => {
      if (!/^[a-z0-9][a-z0-9_-]{0,80}$/.test(name ?? ''))
        throw new UsageError(`a step's name is lowercase letters, digits, - and _ (got "${name}")`);
      const dir = resolve(loadConfig().migrationsDir ?? 'migrations');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, nextStepFile(existsSync(dir) ? readdirSync(dir) : [], name!));
      writeFileSync(file, TEMPLATE, { flag: 'wx' });
      process.stdout.write(`${relative(process.cwd(), file)}\n`);
    },
  ),
};
