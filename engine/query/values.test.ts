import { describe, expect, it } from 'vitest';
import type { FieldKind } from '../define.ts';
import { likePatternProblem, MAX_PATTERN_LENGTH, VALUE_PARSERS } from './values.ts';

const OK = (value: unknown) => ({ ok: true, value });
const BAD = { ok: false, message: expect.any(String) };

describe('VALUE_PARSERS', () => {
  const cases: [FieldKind, string, unknown][] = [
    ['integer', '7', OK(7)],
    ['integer', '-3', OK(-3)],
    ['integer', '+4', OK(4)],
    ['integer', '007', OK(7)],
    ['integer', '9007199254740991', OK(9007199254740991)],
    ['integer', '-9007199254740991', OK(-9007199254740991)],
    ['integer', '9007199254740992', BAD],
    ['integer', '12345678901234567', BAD],
    ['integer', '1.5', BAD],
    ['integer', '1e3', BAD],
    ['integer', '0x10', BAD],
    ['integer', ' 5', BAD],
    ['integer', '5 ', BAD],
    ['integer', '', BAD],
    ['integer', '-', BAD],
    ['integer', '١', BAD], // an Arabic-Indic digit is not an ASCII digit
    ['number', '12.5', OK(12.5)],
    ['number', '-0.001', OK(-0.001)],
    ['number', '+3', OK(3)],
    ['number', '2.50', OK(2.5)],
    ['number', '1e21', OK(1e21)],
    ['number', '1.5E-7', OK(1.5e-7)],
    ['number', '-0', OK(0)],
    ['number', '123456789012345', OK(123456789012345)],
    ['number', '1234567890123456', BAD], // 16 significant digits
    ['number', '0.30000000000000004', BAD],
    ['number', '1e400', BAD],
    ['number', '5e-324', BAD],
    ['number', 'NaN', BAD],
    ['number', 'Infinity', BAD],
    ['number', '.5', BAD],
    ['number', '1.', BAD],
    ['number', '0x10', BAD],
    ['number', ' 1', BAD],
    ['number', '', BAD],
    ['date', '2024-02-29', OK('2024-02-29')],
    ['date', '0001-01-01', OK('0001-01-01')],
    ['date', '9999-12-31', OK('9999-12-31')],
    ['date', '2023-02-29', BAD],
    ['date', '2023-02-30', BAD],
    ['date', '2024-04-31', BAD],
    ['date', '2024-13-01', BAD],
    ['date', '2024-00-10', BAD],
    ['date', '0000-01-01', BAD],
    ['date', '2024-1-01', BAD],
    ['date', '20240101', BAD],
    ['date', '2024-01-01T00:00:00Z', BAD],
    ['date', 'today', BAD],
    ['boolean', 'true', OK(true)],
    ['boolean', 'false', OK(false)],
    ['boolean', 'TRUE', BAD],
    ['boolean', '1', BAD],
    ['boolean', 'yes', BAD],
    ['timestamp', '2024-01-31T08:00:00Z', OK('2024-01-31T08:00:00.000Z')],
    ['timestamp', '2024-01-31T10:00:00+02:00', OK('2024-01-31T08:00:00.000Z')],
    ['timestamp', '2024-01-31T08:00:00', BAD],
    ['timestamp', '2024-01-31', BAD],
    ['timestamp', '9999-12-31T23:30:00-01:00', BAD], // year 10000 in UTC
    ['string', 'open', OK('open')],
    ['string', ' spaced : colon ', OK(' spaced : colon ')],
    ['string', '%_\\', OK('%_\\')],
    ['string', 'émoji 😀', OK('émoji 😀')],
    ['string', 'a\u0000b', BAD],
    ['string', 'lone \ud800', BAD],
    ['string', 'lone \udc00', BAD],
  ];
  it.each(cases)('%s %j', (kind, input, expected) => {
    expect(VALUE_PARSERS[kind](input)).toEqual(expected);
  });
});

describe('likePatternProblem', () => {
  const cases: [string, string, boolean][] = [
    ['plain text', 'open', true],
    ['wildcards', '%o_en%', true],
    ['an escaped wildcard', 'a\\%', true],
    ['an escaped backslash at the end', 'a\\\\', true],
    ['an escaped ordinary character', '\\x', true],
    ['a trailing backslash', 'a\\', false],
    ['a lone backslash', '\\', false],
    ['three backslashes: the last is alone', 'a\\\\\\', false],
    ['a NUL', 'a\u0000%', false],
    ['the longest allowed', 'a'.repeat(MAX_PATTERN_LENGTH), true],
    ['one character too long', 'a'.repeat(MAX_PATTERN_LENGTH + 1), false],
  ];
  it.each(cases)('%s', (_title, pattern, valid) => {
    const problem = likePatternProblem(pattern);
    if (valid) expect(problem).toBeUndefined();
    else expect(problem).toEqual(expect.stringMatching(/\S/));
  });
  it('names the fix for a trailing backslash', () => {
    expect(likePatternProblem('a\\')).toContain('\\\\');
  });
});
