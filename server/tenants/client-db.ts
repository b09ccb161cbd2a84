import { EngineError } from '../../engine/errors.ts';

/** `<client>.<schema>`, each part `[a-z0-9_]{1,63}`. */
export const CLIENT_DB = /^[a-z0-9_]{1,63}\.[a-z0-9_]{1,63}$/;

export function checkClientDb(value: unknown, parameter = 'client_db'): string {
  if (typeof value === 'string' && CLIENT_DB.test(value)) return value;
  throw new EngineError('invalid-request', 'client_db must have the form <client>.<schema>.', [
    { field: parameter, message: 'must be <client>.<schema>, each part 1 to 63 of a-z, 0-9, _' },
  ]);
}
