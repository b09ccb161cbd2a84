import type { EngineError } from '../../errors.ts';
import type { FieldDef } from '../../define.ts';
import type { ApiRecord, Stored } from '../../records.ts';
import type { Resource } from '../../registry.ts';
import type { Mover } from '../../states/transition.ts';
import type { Facts, RowCondition } from '../conditions.ts';

/** A PATCH or PUT as the rules see it. */
export interface UpdateWrite {
  /** The body as sent (an object). */
  readonly sent: ApiRecord;
  /** The writable fields it writes, once the body passed its checks (undefined until then). */
  readonly values: ApiRecord | undefined;
  readonly mover: Mover;
}

/**
 * A rule a write must keep, declared once: what it asks of the row a write replaces is data
 * (`conditions`), so a write that reads the record first judges it in JavaScript and one that
 * does not puts it in its statement's WHERE (engine/writes/conditions.ts). `refusal` only says
 * why a record read fails them: an `invalid-body` error (its problems reported with the body's),
 * or another of its own (states: 409, 403).
 */
export interface WriteRule {
  readonly name: string;
  /** The field option the rule is declared by, checked when a definition is: one line per problem. */
  readonly check?: (name: string, field: FieldDef, fields: Readonly<Record<string, FieldDef>>) => string[];
  readonly conditions: (resource: Resource, write: UpdateWrite) => RowCondition[];
  readonly refusal: (resource: Resource, write: UpdateWrite, current: Stored, facts?: Facts) => EngineError;
}
