import { Counter, Gauge, type Registry } from 'prom-client';
import type { FileStore } from '../engine/files/store.ts';

/** Listing a store walks every object: a scrape reuses a count this recent. */
const STORED_TTL_MS = 60_000;

/** A store counting uploads and downloads per tenant, and the bytes it holds per tenant, for /metrics. */
export function fileMetrics(store: FileStore): { store: FileStore; register(registry: Registry): void } {
  const uploads = new Map<string, number>();
  const downloads = new Map<string, number>();
  const bump = (m: Map<string, number>, tenant: string) => m.set(tenant, (m.get(tenant) ?? 0) + 1);
  let stored: { at: number; bytes: Map<string, number> } | undefined;
  const storedBytes = async () => {
    if (stored && Date.now() - stored.at < STORED_TTL_MS) return stored.bytes;
    const bytes = new Map<string, number>();
    for await (const o of store.list()) if (o.sha256 !== undefined) bytes.set(o.tenant, (bytes.get(o.tenant) ?? 0) + o.size);
    stored = { at: Date.now(), bytes };
    return bytes;
  };
  return {
    store: {
      put: async (tenant, body, maxBytes) => {
        const bytes = await store.put(tenant, body, maxBytes);
        bump(uploads, tenant);
        return bytes;
      },
      get: async (tenant, sha256, range) => {
        const body = await store.get(tenant, sha256, range);
        if (body) bump(downloads, tenant);
        return body;
      },
      delete: (object) => store.delete(object),
      list: () => store.list(),
    },
    register(registry) {
      for (const [name, help, m] of [
        ['mrs_file_uploads_total', "Attached files' bytes stored (uploads and content replaced), by tenant.", uploads],
        ['mrs_file_downloads_total', "Attached files' contents served (whole or a range), by tenant.", downloads],
      ] as const)
        new Counter({
          name,
          help,
          labelNames: ['tenant'] as const,
          registers: [registry],
          collect() {
            this.reset();
            for (const [tenant, n] of m) this.inc({ tenant }, n);
          },
        });
      new Gauge({
        name: 'mrs_files_stored_bytes',
        help: 'Bytes of attached files in the store, by tenant (counted at most once a minute; bytes no file names included until the sweep).',
        labelNames: ['tenant'] as const,
        registers: [registry],
        async collect() {
          this.reset();
          for (const [tenant, bytes] of await storedBytes()) this.set({ tenant }, bytes);
        },
      });
    },
  };
}
