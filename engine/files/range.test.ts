import { describe, expect, it } from 'vitest';
import { keptFilename } from './filename.ts';
import { rangeAsked } from './range.ts';

describe('rangeAsked', () => {
  it.each([
    [null, 100, { kind: 'whole' }],
    ['bytes=0-9', 100, { kind: 'range', range: { start: 0, end: 9 } }],
    ['bytes=90-', 100, { kind: 'range', range: { start: 90, end: 99 } }],
    ['bytes=90-500', 100, { kind: 'range', range: { start: 90, end: 99 } }],
    ['bytes=-10', 100, { kind: 'range', range: { start: 90, end: 99 } }],
    ['bytes=-500', 100, { kind: 'range', range: { start: 0, end: 99 } }],
    ['bytes=100-', 100, { kind: 'unsatisfiable' }],
    ['bytes=-0', 100, { kind: 'unsatisfiable' }],
    ['bytes=0-', 0, { kind: 'unsatisfiable' }],
    ['bytes=0-1,5-6', 100, { kind: 'whole' }],
    ['bytes=9-0', 100, { kind: 'whole' }],
    ['items=0-1', 100, { kind: 'whole' }],
    ['bytes=-', 100, { kind: 'whole' }],
  ] as const)('%s of %i bytes', (header, size, expected) => {
    expect(rangeAsked(header, size)).toEqual(expected);
  });
});

describe('keptFilename', () => {
  it.each([
    ['pump.jpg', 'pump.jpg'],
    ['../../etc/passwd', 'passwd'],
    ['C:\\photos\\pump.jpg', 'pump.jpg'],
    ['pu\u0000mp\r\n.jpg', 'pump.jpg'],
    ['  pumpe ä.jpg ', 'pumpe ä.jpg'],
    ['é'.repeat(255), 'é'.repeat(255)],
  ])('%j is kept as %j', (sent, kept) => {
    expect(keptFilename(sent)).toEqual({ ok: true, value: kept });
  });
  it.each(['', 'photos/', '..', '\u0007', 'x'.repeat(256)])('%j is refused', (sent) => {
    expect(keptFilename(sent).ok).toBe(false);
  });
});
