/** A command-line mistake: printed as one line, exit 2. */
export class UsageError extends Error {}

/** A refused action (e.g. creating what exists): printed as one line, exit 1. */
export class CommandError extends Error {}

/** Parsed options by name: strings, or lists for repeatable options. */
export type Values = Record<string, string | boolean | string[] | undefined>;

/** A repeatable option's values (none: empty). */
export const listOf = (values: Values, name: string): string[] => {
  const v = values[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
};
