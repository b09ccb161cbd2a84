import { describe, expect, it } from 'vitest';
import { likeToGlob } from './dialect.ts';

describe('likeToGlob: case-sensitive LIKE on SQLite', () => {
  const cases: [string, string][] = [
    ['open', 'open'],
    ['%', '*'],
    ['_', '?'],
    ['a%b_c', 'a*b?c'],
    ['\\%', '%'],
    ['\\_', '_'],
    ['\\\\', '\\'],
    ['\\x', 'x'],
    ['50\\%%', '50%*'],
    // GLOB's own specials are literals in a LIKE pattern
    ['*', '[*]'],
    ['?', '[?]'],
    ['[a]', '[[]a]'],
    ['\\*', '[*]'],
    ['é😀', 'é😀'],
  ];
  it.each(cases)('%s -> %s', (like, glob) => {
    expect(likeToGlob(like)).toBe(glob);
  });
});
