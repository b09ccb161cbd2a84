import type { Action } from '../../engine/http/route-table.ts';

export const ACTIONS = ['read', 'create', 'update', 'delete'] as const satisfies readonly Action[];

/** `*` stands for every collection or every action. */
export const ANY = '*';

export interface Grant {
  readonly collection: string;
  readonly action: Action | typeof ANY;
}

/** Roles every tenant has without creating them. */
export const BUILT_IN_ROLES: Readonly<Record<string, readonly Grant[]>> = {
  admin: [{ collection: ANY, action: ANY }],
  reader: [{ collection: ANY, action: 'read' }],
};

export const isBuiltInRole = (role: string) => Object.hasOwn(BUILT_IN_ROLES, role);

export type Can = (collection: string, action: Action) => boolean;

/** The permission check of a set of grants (the union of a user's roles). */
export function permissionsOf(grants: readonly Grant[]): Can {
  const held = new Set(grants.map((g) => `${g.collection}:${g.action}`));
  return (collection, action) =>
    held.has(`${ANY}:${ANY}`) || held.has(`${collection}:${ANY}`) || held.has(`${ANY}:${action}`) || held.has(`${collection}:${action}`);
}

export type GrantProblem = 'form' | 'action' | 'collection';

/**
 * `<collection>:<action>` as written on the command line; `*` or `all` for every collection
 * or action (`all` means every collection only when no collection is named `all`).
 */
export function parseGrant(text: string, collections: ReadonlySet<string>): Grant | GrantProblem {
  const m = /^([^:]+):([^:]+)$/.exec(text);
  if (!m) return 'form';
  const [, c, a] = m as unknown as [string, string, string];
  const collection = c === ANY || (c === 'all' && !collections.has('all')) ? ANY : c;
  const action = a === ANY || a === 'all' ? ANY : a;
  if (action !== ANY && !(ACTIONS as readonly string[]).includes(action)) return 'action';
  if (collection !== ANY && !collections.has(collection)) return 'collection';
  return { collection, action: action as Grant['action'] };
}
