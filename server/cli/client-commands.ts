import { writeFileSync } from 'node:fs';
import { clientTypes } from '../client-types.ts';
import { loadConfig } from '../config.ts';
import { loadResources } from '../load-resources.ts';
import { command, type Command } from './command.ts';

/** The client's side of the deployment (`maintenance-records/client`). */
export const CLIENT_COMMANDS: Record<string, Command> = {
  'client generate': command(
    'client generate',
    "Write the TypeScript types of the definitions' collections for the client (records, bodies, filters, $orderBy, $linked, $fields), to stdout or a file.",
    {
      options: [
        { flags: '--out <file>', description: 'write them to this file instead of stdout' },
        { flags: '--import <module>', description: "where the client's types are imported from (default maintenance-records/client)" },
      ],
    },
    async (_args, values) => {
      const from = typeof values['import'] === 'string' ? values['import'] : undefined;
      const text = clientTypes(await loadResources(loadConfig().resourcesDir), from);
      if (typeof values['out'] !== 'string') return void process.stdout.write(text);
      writeFileSync(values['out'], text);
      console.error(`wrote the types of the collections to ${values['out']}`);
    },
  ),
};
