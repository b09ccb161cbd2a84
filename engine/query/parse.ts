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

export interface RawQuery {
  readonly filters: readonly RawFilter[];
  readonly reserved: readonly RawReserved[];
  readonly errors: readonly { parameter: string; message: string }[];
}

/** Parameters arrive percent-decoded once, `+` a space (as URLSearchParams gives them). */
export function parseQuery(params: Iterable<readonly [string, string]>): RawQuery {
  const filters: RawFilter[] = [];
  const reserved: RawReserved[] = [];
  const errors: { parameter: string; message: string }[] = [];
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
      errors.push({ parameter: param, message: 'only one colon may separate the property from the operator' });
      continue;
    }
    filters.push({ param, property, operator, value });
  }
  return { filters, reserved, errors };
}
