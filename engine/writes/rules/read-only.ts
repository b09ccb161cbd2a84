import { EngineError } from '../../errors.ts';
import type { Resource } from '../../registry.ts';
import { holds, NEVER, showsJson, type RowCondition } from '../conditions.ts';
import type { UpdateWrite, WriteRule } from './rule.ts';

/** A read-only field sent keeps the record's value: the record's JSON of it is the body's. */
const keeps = (name: string, write: UpdateWrite): RowCondition => {
  const json = showsJson(write.sent, [name]);
  return json === undefined ? NEVER : { is: 'shows', fields: [name], json };
};

const sentOf = (resource: Resource, write: UpdateWrite) => resource.readOnly.filter((n) => write.sent[n] !== undefined);

/** Read-only fields (the system ones, `readOnly: true`) may be sent in PUT and PATCH only with their current value. */
export const readOnlyRule: WriteRule = {
  name: 'read-only fields',
  conditions: (resource, write) => {
    const sent = sentOf(resource, write);
    if (sent.length <= 1) return sent.map((n) => keeps(n, write));
    // One comparison for all of them: a record read back and sent again sends them all.
    const json = showsJson(write.sent, sent);
    return [json === undefined ? NEVER : { is: 'shows', fields: sent, json }];
  },
  refusal: (resource, write, current) =>
    new EngineError(
      'invalid-body',
      'The body is not a valid record: see errors.',
      sentOf(resource, write)
        .filter((n) => !holds(keeps(n, write), current))
        .map((field) => ({
          field,
          message: `is set by the server; send it only with its current value ${JSON.stringify(current.record[field])}`,
        })),
    ),
};
