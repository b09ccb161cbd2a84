/**
 * A host application that embeds the collections: its own routes, its own (toy) sessions,
 * and the engine mounted at a base path of its choosing. Runtime-free: the Node and Bun
 * entries beside it only open the database and listen.
 */
import { Hono } from 'hono';
import type { Kysely } from 'kysely';
import { createEngine, EngineError, type DbCaller, type DbEngine } from 'maintenance-records';
import { boolean, defineResource, string } from 'maintenance-records/define';

export const BASE_PATH = '/api/records';

/** The host's own collection, defined inline. */
export const tasks = defineResource({
  name: 'tasks',
  fields: {
    title: string({ required: true, filterable: true, maxLength: 200 }),
    done: boolean({ default: false, filterable: true }),
  },
});

/** The host's sessions: a `sid` cookie names a user; `viewer` may only read. */
const SESSIONS: Record<string, { user: string; readOnly: boolean }> = {
  'demo-admin': { user: 'admin', readOnly: false },
  'demo-viewer': { user: 'viewer', readOnly: true },
};

async function callerFromSession(req: Request): Promise<DbCaller> {
  const sid = /(?:^|;\s*)sid=([^;]*)/.exec(req.headers.get('cookie') ?? '')?.[1];
  const session = sid === undefined ? undefined : SESSIONS[sid];
  if (!session) throw new EngineError('unauthorized', 'Sign in first: send the cookie sid=demo-admin or sid=demo-viewer.');
  return { user: session.user, can: (_collection, action) => action === 'read' || !session.readOnly };
}

export interface HostOptions {
  /** `off`: anyone may do anything; `session`: the host's cookie decides (default). */
  readonly auth?: 'off' | 'session';
  /** PostgreSQL: the schema for the tables (keeps the example out of `public`). */
  readonly schema?: string;
}

export async function createHostApp(db: Kysely<any>, options: HostOptions = {}): Promise<{ app: Hono; engine: DbEngine }> {
  const engine = createEngine({
    db,
    resources: [tasks],
    basePath: BASE_PATH,
    cursorTtlS: 600,
    ...(options.schema ? { schema: options.schema } : {}),
    ...(options.auth === 'off' ? {} : { resolveCaller: callerFromSession }),
  });
  await engine.migrate();
  const app = new Hono();
  app.get('/', (c) => c.text(`The host's home page. Collections: ${BASE_PATH}/maintenance/tasks\n`));
  app.get('/api/whoami', (c) =>
    c.json({ host: 'example', runtime: typeof (globalThis as { Bun?: unknown }).Bun === 'object' ? 'bun' : 'node' }),
  );
  app.route('/', engine.app);
  return { app, engine };
}
