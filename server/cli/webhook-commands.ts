import { loadConfig } from '../config.ts';
import { parseWebhookUrl, PrivateAddressError, publicAddresses } from '../webhooks/address.ts';
import { createWebhook, deleteWebhook, enableWebhook, listWebhooks } from '../webhooks/store.ts';
import { CommandError, listOf, UsageError } from './args.ts';
import { clientDbArg, command, withTenant, type Command } from './command.ts';
import { table } from './table.ts';

/** A tenant's webhooks (SPEC 9). The signing secret reaches stdout once, at creation; never stderr. */

const WEBHOOK_ID = /^wh_[A-Za-z0-9_-]{1,64}$/;

const idArg = (v: string | undefined) => {
  if (!v || !WEBHOOK_ID.test(v)) throw new UsageError(`webhook id must be as mrs webhook list shows it (wh_...), got "${v}"`);
  return v;
};

/** `delete` and `enable`: the same arguments and answers. */
const onWebhook = (verb: 'delete' | 'enable', summary: string, change: typeof deleteWebhook) =>
  command(`webhook ${verb}`, summary, { args: ['client_db', 'id'] }, async ([db, raw]) => {
    const clientDb = clientDbArg(db);
    const id = idArg(raw);
    const found = await withTenant(clientDb, async (t, s) => {
      const changed = await change(t, id);
      // The servers' dispatchers look at the noted tenants; one without webhooks left is un-noted by them.
      if (changed && verb === 'enable') await s.tenants.webhooks.note(clientDb, true);
      return changed;
    });
    if (!found) throw new CommandError(`webhook ${id} does not exist in ${clientDb}`);
    console.error(`${verb}d webhook ${id} in ${clientDb}`);
  });

export const WEBHOOK_COMMANDS: Record<string, Command> = {
  'webhook create': command(
    'webhook create',
    "Deliver the tenant's change feed from its current end to a URL (Standard Webhooks). Prints the id and the signing secret on stdout; the secret is shown this once.",
    {
      args: ['client_db', 'url'],
      options: [
        { flags: '--collection <name>', description: 'only events of this collection (repeat for more; default: all)', repeatable: true },
      ],
    },
    async ([db, rawUrl], values) => {
      const clientDb = clientDbArg(db);
      const url = parseWebhookUrl(rawUrl ?? '');
      if (typeof url === 'string') throw new UsageError(url);
      const config = loadConfig();
      if (!config.webhookAllowPrivate) {
        try {
          await publicAddresses(url.hostname);
        } catch (e) {
          throw new UsageError(e instanceof PrivateAddressError ? e.message : `${url.hostname} does not resolve: ${(e as Error).message}`);
        }
      }
      const collections = [...new Set(listOf(values, 'collection'))];
      const made = await withTenant(clientDb, async (t, s) => {
        const known = [...s.engine.registry.resources.keys()];
        const unknown = collections.find((c) => !known.includes(c));
        if (unknown !== undefined) throw new UsageError(`--collection ${unknown}: no such collection (collections: ${known.join(', ')})`);
        const made = await createWebhook(t, url.href, collections);
        await s.tenants.webhooks.note(clientDb, true);
        return made;
      });
      process.stdout.write(`${made.id}\n${made.secret}\n`);
      console.error(`created webhook ${made.id} in ${clientDb}, starting after seq ${made.position}; its secret is shown only now`);
    },
  ),
  'webhook list': command(
    'webhook list',
    'List the webhooks of a tenant: id, URL, collections, the seq delivered up to, state, last error (never the secret).',
    { args: ['client_db'] },
    async ([db]) => {
      const hooks = await withTenant(clientDbArg(db), (t) => listWebhooks(t));
      const rows = hooks.map((w) => [w.id, w.url, w.collections.join(',') || '*', String(w.position), w.state, w.lastError ?? '-']);
      process.stdout.write(table(['ID', 'URL', 'COLLECTIONS', 'POSITION', 'STATE', 'LAST_ERROR'], rows));
    },
  ),
  'webhook delete': onWebhook('delete', 'Delete a webhook: nothing more is delivered to it.', deleteWebhook),
  'webhook enable': onWebhook('enable', 'Enable a disabled webhook: delivery resumes from the seq it was delivered up to.', enableWebhook),
};
