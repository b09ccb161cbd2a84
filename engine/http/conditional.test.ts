import { describe, expect, it } from 'vitest';
import { EngineError, problemsOf, valueOf } from '../errors.ts';
import { etagOf, ifMatchHolds, noneMatchMatches, parseCondition, type Condition } from './conditional.ts';

const parsed = (v: string) => valueOf(parseCondition('If-Match', v)) as Condition;

describe('conditional headers', () => {
  it('the tag of a version is strong and quoted', () => {
    expect(etagOf(3)).toBe('"3"');
    expect(etagOf('12')).toBe('"12"');
  });

  it.each([
    ['*', { any: true }],
    ['"1"', { any: false, tags: [{ opaque: '"1"', weak: false }] }],
    [
      ' "1" , W/"2",, "" ',
      {
        any: false,
        tags: [
          { opaque: '"1"', weak: false },
          { opaque: '"2"', weak: true },
          { opaque: '""', weak: false },
        ],
      },
    ],
  ])('parses %j', (value, expected) => expect(parseCondition('If-Match', value)).toEqual({ value: expected }));

  it.each(['1', '"1', 'W/1', '"a" "b"', '', ',', '**', 'w/"1"', '"a"b"', '*, "1"'])('refuses %j naming the header', (value) => {
    const r = parseCondition('If-None-Match', value);
    expect('error' in r && r.error).toBeInstanceOf(EngineError);
    expect(problemsOf(r)).toEqual([{ header: 'If-None-Match', message: expect.any(String) }]);
  });

  it('is undefined when the header was not sent', () => expect(parseCondition('If-Match', null)).toEqual({ value: undefined }));

  it('If-Match compares strongly: a weak tag never matches; If-None-Match compares weakly', () => {
    expect(ifMatchHolds(parsed('"1", "2"'), '"2"')).toBe(true);
    expect(ifMatchHolds(parsed('W/"2"'), '"2"')).toBe(false);
    expect(ifMatchHolds(parsed('"3"'), '"2"')).toBe(false);
    expect(ifMatchHolds(parsed('*'), '"2"')).toBe(true);
    expect(noneMatchMatches(parsed('W/"2"'), '"2"')).toBe(true);
    expect(noneMatchMatches(parsed('"1"'), '"2"')).toBe(false);
  });
});
