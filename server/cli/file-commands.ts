import { sweepFiles } from '../../engine/files/sweep.ts';
import { loadConfig } from '../config.ts';
import { fileStoreOf } from '../files.ts';
import { command, withService, type Command } from './command.ts';

/** Attached files' stored bytes (SPEC 13). */
export const FILE_COMMANDS: Record<string, Command> = {
  'files sweep': command(
    'files sweep',
    'Remove the stored bytes of attached files that no file names (left by a crash or a failed upload), older than an hour; never bytes a file, deleted or not, names.',
    { options: [{ flags: '--dry-run', description: 'print what would be removed and remove nothing' }] },
    async (_args, values) => {
      const config = loadConfig();
      const dryRun = values['dryRun'] === true;
      const store = await fileStoreOf(config);
      const result = await withService((s) => sweepFiles(store, (key) => s.tenants.get(key), { dryRun }), config);
      const verb = dryRun ? 'would remove' : 'removed';
      for (const o of result.removed) console.log(`${verb} ${o.tenant} ${o.sha256 ?? `unfinished ${o.key}`} (${o.size} bytes)`);
      const bytes = result.removed.reduce((n, o) => n + o.size, 0);
      console.error(`${verb} ${result.removed.length} unreferenced (${bytes} bytes); kept ${result.kept}`);
    },
  ),
};
