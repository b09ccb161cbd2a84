import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { etagOf, ifMatchHolds, parseCondition, type Condition } from '../../http/conditional.ts';
import { holds, NEVER } from '../conditions.ts';
import { ifMatchCondition, ifMatchHeld } from './if-match.ts';

/** An If-Match header's tags: ours (`"7"`), weak, not ours (`"07"`, `"x"`, too long), at random. */
const ifMatchHeader = fc
  .array(
    fc.oneof(
      fc.integer({ min: 1, max: 6 }).map((v) => `"${v}"`),
      fc.integer({ min: 1, max: 6 }).map((v) => `W/"${v}"`),
      fc.constantFrom('"07"', '"0"', '"x"', '""', `"${'9'.repeat(16)}"`),
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((tags) => tags.join(', '));

const parsed = (header: string): Condition => {
  const r = parseCondition('If-Match', header);
  if (!('value' in r) || r.value === undefined) throw new Error(`not parsed: ${header}`);
  return r.value;
};

describe("If-Match's row condition", () => {
  it('holds on a record exactly where the header matches its tag', () => {
    fc.assert(
      fc.property(ifMatchHeader, fc.integer({ min: 1, max: 7 }), (header, version) => {
        const ifMatch = parsed(header);
        const stored = { record: {}, version };
        const condition = ifMatchCondition(ifMatch);
        expect(condition === undefined || holds(condition, stored)).toBe(ifMatchHolds(ifMatch, etagOf(version)));
      }),
      { numRuns: 2000 },
    );
  });

  it('asks nothing of `*` or no header, and no row holds a header with no tag of ours', () => {
    expect(ifMatchCondition(undefined)).toBeUndefined();
    expect(ifMatchCondition(parsed('*'))).toBeUndefined();
    expect(ifMatchCondition(parsed('W/"3", "x"'))).toBe(NEVER);
  });

  it("refuses with 412 and the record's tag", () => {
    const refused = ifMatchHeld(ifMatchCondition(parsed('"2"'))!, { record: {}, version: 3 });
    expect('error' in refused && [refused.error.status, refused.error.headers.etag]).toEqual([412, '"3"']);
  });
});
