/**
 * Text no stored string holds: NUL (PostgreSQL refuses it, even as a parameter) and unpaired
 * surrogates (UTF-8 cannot carry them). Bodies refuse it, and so filter values holding it are
 * refused on every database.
 */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const isStorableText = (s: string) => !UNSTORABLE.test(s);

/** What a value or pattern holding unstorable text is told. */
export const UNSTORABLE_MESSAGE = 'must not contain NUL characters or unpaired surrogates';
