/**
 * The grammar of a list query string, nothing more: which parameters are reserved (`$...`),
 * and for the others the property, the operator (advanced mode) or none (basic mode), the value.
 */

export interface RawFilter {
  /** The parameter name as sent, for error messages. */
  readonly param: string;
  readonly property: string;
  /** `undefined` in basic mode (`property=value`). */
  readonly operator: string | undefined;
  readonly value: string;
}

export interface RawReserved {
  readonly param: string;
  readonly value: string;
}

/** A filter parameter the grammar refuses, kept in its place: resolve reports it with every other problem. */
export interface MalformedFilter {
  readonly param: string;
  readonly malformed: string;
}

export interface RawQuery {
  readonly filters: readonly (RawFilter | MalformedFilter)[];
  readonly reserved: readonly RawReserved[];
}

/** Parameters arrive percent-decoded once, `+` a space (as URLSearchParams gives them). */
export function parseQuery(params: Iterable<readonly [string, string]>): RawQuery {
  const filters: (RawFilter | MalformedFilter)[] = [];
  const reserved: RawReserved[] = [];
  for (const [param, value] of params) {
    if (param.startsWith('$')) {
      reserved.push({ param, value });
      continue;
    }
    const colon = param.indexOf(':');
    if (colon === -1) {
      filters.push({ param, property: param, operator: undefined, value });
      continue;
    }
    const property = param.slice(0, colon);
    const operator = param.slice(colon + 1);
    if (operator.includes(':')) {
      filters.push({ param, malformed: 'only one colon may separate the property from the operator' });
      continue;
    }
    filters.push({ param, property, operator, value });
  }
  return { filters, reserved };
}
