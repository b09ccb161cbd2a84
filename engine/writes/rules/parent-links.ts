import { EngineError } from '../../errors.ts';
import type { Resource } from '../../registry.ts';
import { holds, type RowCondition } from '../conditions.ts';
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
