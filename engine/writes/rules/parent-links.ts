import { EngineError, type ProblemItem } from '../../errors.ts';
import type { Resource } from '../../registry.ts';
import { holds, type Facts, type RowCondition } from '../conditions.ts';
import type { UpdateWrite, WriteRule } from './rule.ts';

/** The parent links a write sends with an integer (checked even when other fields are invalid), each as its condition. */
const linksSent = (resource: Resource, write: UpdateWrite) =>
  [...resource.parents].flatMap(([table, field]) => {
    const id = write.sent[field];
    if (!Number.isSafeInteger(id)) return [];
    // The record's own parent may stay though it was deleted since; another must be live.
    const keepsOrLive: RowCondition = {
      is: 'any',
      of: [
        { is: 'eq', field, value: id as number },
        { is: 'live', table, id: id as number },
      ],
    };
    return [{ table, field, keepsOrLive }];
  });

/** A parent link (a field declaring `parent`) sent keeps the record's value, or names a live record of its parent collection. */
export const parentLinksRule: WriteRule = {
  name: 'parent links',
  conditions: (resource, write) => linksSent(resource, write).map((l) => l.keepsOrLive),
  refusal: (resource, write, current, facts) =>
    new EngineError(
      'invalid-body',
      'The body is not a valid record: see errors.',
      linksSent(resource, write)
        .filter((l) => !holds(l.keepsOrLive, current, facts))
        .map(({ table, field }) => ({ field, message: `names no live ${table} record` })),
    ),
};

/** A create's parent links sent with an integer, each naming a live record: its INSERT's conditions. */
export const createLinkConditions = (resource: Resource, sent: Readonly<Record<string, unknown>>): RowCondition[] =>
  [...resource.parents].flatMap(([table, field]) =>
    Number.isSafeInteger(sent[field]) ? [{ is: 'live', table, id: sent[field] as number } as const] : [],
  );

/** The problems of a create's link conditions that do not hold, `facts` their records looked up. */
export const createLinkProblems = (resource: Resource, conditions: readonly RowCondition[], facts: Facts): ProblemItem[] =>
  conditions.flatMap((c) =>
    c.is === 'live' && !facts.live(c.table, c.id)
      ? [{ field: resource.parents.get(c.table)!, message: `names no live ${c.table} record` }]
      : [],
  );
