import { describe, expect, it } from 'vitest';
import { nextStepFile } from './step-commands.ts';

describe('nextStepFile', () => {
  it('numbers a new step one past the highest sequence in the folder, four digits at least', () => {
    expect(nextStepFile([], 'fill-site')).toBe('0001-fill-site.ts');
    expect(nextStepFile(['0001-a.ts', '0007-b.ts', 'README.md', 'checksums.json'], 'c')).toBe('0008-c.ts');
    expect(nextStepFile(['12345-big.ts'], 'next')).toBe('12346-next.ts');
  });
});
