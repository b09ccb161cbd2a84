import type { FieldDef, StateMap } from '../define.ts';
import type { Resource } from '../registry.ts';

/** A field that declares the states a record moves through (SPEC 11). */
export type StateField = FieldDef<'string'> & { readonly states: StateMap; readonly default: string };

export const hasStates = (f: FieldDef): f is StateField => f.states !== undefined;

const cache = new WeakMap<Resource, readonly (readonly [string, StateField])[]>();

/** The resource's fields with states, by name; derived once. */
export function stateFields(resource: Resource): readonly (readonly [string, StateField])[] {
  let found = cache.get(resource);
  if (!found) {
    found = Object.entries(resource.fields).flatMap(([n, f]) => (hasStates(f) ? [[n, f] as const] : []));
    cache.set(resource, found);
  }
  return found;
}

/** Whether a record may move from one state to another: staying is always allowed. */
export const mayMove = (f: StateField, from: string, to: string): boolean => from === to || (f.states[from]?.includes(to) ?? false);

/** `a, b or c`; `none` for an end state. */
export const listStates = (states: readonly string[]): string =>
  states.length === 0 ? 'none' : states.length === 1 ? states[0]! : `${states.slice(0, -1).join(', ')} or ${states.at(-1)}`;

const sources = new WeakMap<StateField, ReadonlyMap<string, readonly string[]>>();

/** The states a record may move into `to` from (staying aside), derived once per field. */
export function movesInto(f: StateField, to: string): readonly string[] {
  let byTarget = sources.get(f);
  if (!byTarget) {
    const states = Object.keys(f.states);
    byTarget = new Map(states.map((t) => [t, Object.freeze(states.filter((s) => s !== t && mayMove(f, s, t)))]));
    sources.set(f, byTarget);
  }
  return byTarget.get(to) ?? [];
}
