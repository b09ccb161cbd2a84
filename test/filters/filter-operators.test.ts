import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/harness.ts';
import { FILTER_SET, insertFilterSet, LIVE, liveWhere, names, qs } from '../support/filter-data.ts';

describeEachDatabase('filters: every operator', (h) => {
  beforeAll(async () => {
    await insertFilterSet(h());
  });
  const list = (q: string) => names(h(), q);

  it('no filter: every live record, by id', async () => {
    expect(await list('')).toEqual(LIVE);
  });

  describe('eq', () => {
    const cases: [string, string, string[]][] = [
      ['basic form', 'department_id=1', ['w1', 'w4', 'w7']],
      [':eq form', 'department_id:eq=1', ['w1', 'w4', 'w7']],
      ['on a string, exactly (case matters)', qs(['status', 'open']), ['w1']],
      ['on a date', 'created=2023-01-10', ['w1', 'w7', 'w8']],
      ['negative and zero integers', 'priority=-1&priority=0', ['w10', 'w11']],
      ['never matches empty values', 'priority=1', ['w1']],
      ['% and _ are literal', qs(['status', '50% done']), ['w4']],
      ['no match', 'department_id=99', []],
      ['AND across properties', 'department_id=1&priority=3', ['w4']],
    ];
    it.each(cases)('%s: %s', async (_t, q, expected) => {
      expect(await list(q)).toEqual(expected);
    });
  });

  describe('ne (matches empty values too)', () => {
    const cases: [string, string, string[]][] = [
      ['integer', 'priority:ne=2', liveWhere((r) => r.priority !== 2)],
      ['includes null priorities', 'priority:ne=1', liveWhere((r) => r.priority !== 1)],
      ['string', qs(['status:ne', 'open']), liveWhere((r) => r.status !== 'open')],
      ['date', 'created:ne=2023-01-10', liveWhere((r) => r.created !== '2023-01-10')],
      [
        'repeated: NOT IN, empty values included',
        'priority:ne=1&priority:ne=2&priority:ne=5',
        liveWhere((r) => ![1, 2, 5].includes(r.priority)),
      ],
    ];
    it.each(cases)('%s: %s', async (_t, q, expected) => {
      expect(expected).toContain('w3'); // every case keeps a record with no priority or another status
      expect(await list(q)).toEqual(expected);
    });
  });

  describe('gt, gte, lt, lte (never match empty values)', () => {
    const cases: [string, string, string[]][] = [
      ['gt', 'priority:gt=2', ['w4', 'w6', 'w8']],
      ['gte', 'priority:gte=2', ['w2', 'w4', 'w6', 'w7', 'w8']],
      ['lt', 'priority:lt=1', ['w10', 'w11']],
      ['lte', 'priority:lte=1', ['w1', 'w10', 'w11']],
      ['two bounds', 'priority:gte=1&priority:lte=2', ['w1', 'w2', 'w7']],
      ['dates, the interface example', 'created:gte=2023-01-10&created:lte=2023-03-01', ['w1', 'w2', 'w3', 'w7', 'w8']],
      ['a leap day', 'created:gt=2024-02-28&created:lt=2024-03-01', ['w4']],
      ['strings by code point', qs(['status:gte', 'o']), liveWhere((r) => r.status >= 'o')],
      ['strings: upper case and digits before a, É after it', qs(['status:lt', 'a']), ['w2', 'w4', 'w5']],
      ['strings: É after z', qs(['status:gt', 'z']), ['w7', 'w8']],
      ['id', 'id:gt=0&id:lte=2', ['w1', 'w2']],
    ];
    it.each(cases)('%s: %s', async (_t, q, expected) => {
      expect(await list(q)).toEqual(expected);
    });
  });

  describe('like: case-sensitive, % and _ wildcards, \\ escapes', () => {
    const cases: [string, string, string[]][] = [
      ['prefix', 'o%', ['w1']],
      ['case-sensitive', 'O%', ['w2']],
      ['non-ASCII case-sensitive', 'É%', ['w7']],
      ['_ is one character', 'ope_', ['w1']],
      ['_ is one character, not a byte', '_cole', ['w8']],
      ['_ needs a character', 'open_', []],
      ['% is any run, even empty', '%o%', ['w1', 'w3', 'w4', 'w5', 'w8', 'w10']],
      ['% at both ends, empty runs', '%open%', ['w1']],
      ['\\% is a literal %', '50\\%%', ['w4']],
      ['\\_ is a literal _', '50\\_%', ['w5']],
      ['unescaped _ matches % too', '50_ done', ['w4']],
      ['\\\\ is a backslash', 'back\\\\slash', ['w6']],
      ['\\x is a literal x', '\\b%', ['w6']],
      ['a GLOB wildcard is literal', '*', []],
      ['colons are literal', 'a:%', []], // w9 is deleted
      ['a plus', 'a+b', ['w11']],
      ['without wildcards it is equality', 'open', ['w1']],
    ];
    it.each(cases)('%s: %s', async (_t, pattern, expected) => {
      expect(await list(qs(['status:like', pattern]))).toEqual(expected);
    });
    it('repeated: any of the patterns', async () => {
      expect(await list(qs(['status:like', 'o%'], ['status:like', 'c%'], ['status:like', '%done']))).toEqual(['w1', 'w3', 'w4', 'w5']);
    });
    it('% matches every string', async () => {
      expect(await list(qs(['status:like', '%']))).toEqual(LIVE);
    });
  });

  describe('ilike: ASCII case folding only', () => {
    const cases: [string, string, string[]][] = [
      ['folds ASCII', 'OPEN', ['w1', 'w2']],
      ['folds ASCII with wildcards', 'o%', ['w1', 'w2']],
      ['does not fold É and é', 'école', ['w8']],
      ['does not fold É and é (upper)', 'ÉCOLE', ['w7']],
      ['escapes as in like', '50\\%%', ['w4']],
      ['escaped letters fold too', '\\O%', ['w1', 'w2']],
    ];
    it.each(cases)('%s: %s', async (_t, pattern, expected) => {
      expect(await list(qs(['status:ilike', pattern]))).toEqual(expected);
    });
    it('repeated: any of', async () => {
      expect(await list(qs(['status:ilike', 'OPEN'], ['status:ilike', 'CLOSED']))).toEqual(['w1', 'w2', 'w3']);
    });
  });

  describe('null', () => {
    const empty = liveWhere((r) => r.priority === null);
    const cases: [string, string, string[]][] = [
      ['empty right-hand side, the interface example', 'priority:null=', empty],
      ['true', 'priority:null=true', empty],
      ['false', 'priority:null=false', liveWhere((r) => r.priority !== null)],
      ['a field that is never empty', 'department_id:null=', []],
    ];
    it.each(cases)('%s: %s', async (_t, q, expected) => {
      expect(await list(q)).toEqual(expected);
    });
    it('the set has empty values to find', () => {
      expect(empty).toEqual(['w3', 'w5']);
    });
  });

  describe('repeats', () => {
    const cases: [string, string, string[]][] = [
      ['eq repeated: IN', 'department_id=1&department_id=2', ['w1', 'w2', 'w4', 'w5', 'w7']],
      ['plain and :eq mixed freely', 'department_id=1&department_id:eq=2&department_id=4', ['w1', 'w2', 'w4', 'w5', 'w7', 'w8']],
      ['the same value twice', 'department_id=3&department_id=3', ['w3', 'w6']],
      ['ne repeated: NOT IN', 'department_id:ne=1&department_id:ne=2', ['w3', 'w6', 'w8', 'w10', 'w11']],
      ['eq and ne on one property are both applied', 'department_id=1&department_id=2&department_id:ne=2', ['w1', 'w4', 'w7']],
    ];
    it.each(cases)('%s: %s', async (_t, q, expected) => {
      expect(await list(q)).toEqual(expected);
    });
  });

  it('the set is what the tests think it is', () => {
    expect(Object.keys(FILTER_SET)).toHaveLength(11);
  });
});
