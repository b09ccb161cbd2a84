import { describe, expect, it } from 'vitest';
import { docBlocks, normalize, outputMatches } from '../support/doc-blocks.ts';

const fence = '```';

describe('the runnable parts of a page', () => {
  it('takes each command with the `# ` lines after it as its output, notes before the first command aside', () => {
    const page = [
      `${fence}sh`,
      '# a note',
      'curl -s $B/a \\',
      '  -H "$A"',
      '# {"id":1}',
      '#',
      '# second line',
      'X=1',
      'echo $X',
      '# 1',
      'rm x',
      fence,
    ].join('\n');
    const [block] = docBlocks(page);
    expect(block).toEqual({
      kind: 'sh',
      line: 1,
      steps: [
        { line: 3, command: 'curl -s $B/a \\\n  -H "$A"', expected: ['{"id":1}', '', 'second line'] },
        { line: 8, command: 'X=1\necho $X', expected: ['1'] },
        { line: 11, command: 'rm x', expected: undefined },
      ],
    });
  });

  it('skips a block marked not run, writes one marked as a file, and leaves other languages alone', () => {
    const page = [
      '<!-- not run: a second server -->',
      '',
      `${fence}sh`,
      'npm start',
      fence,
      '<!-- file: resources/a.ts -->',
      `${fence}ts`,
      'export default 1;',
      fence,
      `${fence}json`,
      '{"a": 1}',
      fence,
    ].join('\n');
    expect(docBlocks(page)).toEqual([{ kind: 'file', line: 7, path: 'resources/a.ts', text: 'export default 1;\n' }]);
  });

  it('takes a `ts` block marked to run as one program, with the `// ` lines after its last `// prints:` as its output', () => {
    const page = [
      '<!-- run: tsx -->',
      '',
      `${fence}ts`,
      'const a = 1;',
      '// prints:',
      'console.log(a);',
      '// prints:',
      '// 1',
      '//',
      fence,
    ].join('\n');
    expect(docBlocks(page)).toEqual([
      {
        kind: 'ts',
        line: 3,
        step: { line: 4, command: 'const a = 1;\n// prints:\nconsole.log(a);', expected: ['1', ''] },
      },
    ]);
    expect(docBlocks(`<!-- run: tsx -->\n${fence}ts\nf();\n${fence}`)).toEqual([
      { kind: 'ts', line: 2, step: { line: 3, command: 'f();', expected: undefined } },
    ]);
  });

  it('refuses a program mark on another language or runner, and output lines that are not comments', () => {
    expect(() => docBlocks(`<!-- run: tsx -->\n${fence}sh\nls\n${fence}`)).toThrow(/marks a `ts` block, not a `sh` one/);
    expect(() => docBlocks(`<!-- run: deno -->\n${fence}ts\nf();\n${fence}`)).toThrow(/the only runner is tsx/);
    expect(() => docBlocks(`<!-- run: tsx -->\n${fence}ts\nf();\n// prints:\n1\n${fence}`)).toThrow(/line 5: after `\/\/ prints:`/);
  });

  it('refuses a command where no runner looks, and a mark without its reason', () => {
    expect(() => docBlocks(`${fence}text\ncurl -s $B\n${fence}`)).toThrow(/line 1: a `text` block holds a command/);
    expect(() => docBlocks(`<!-- not run: -->\n${fence}sh\nls\n${fence}`)).toThrow(/needs a reason/);
  });
});

describe('the output shown against the output printed', () => {
  it.each([
    [['a', 'b'], ['a', 'b'], true],
    [['a'], ['a', 'b'], false],
    [['{"id":1,...}'], ['{"id":1,"x":2}'], true],
    [['HTTP/1.1 200 OK', '...', 'etag: "2"', '...'], ['HTTP/1.1 200 OK', 'x: 1', 'y: 2', 'etag: "2"', 'z: 3'], true],
    [['HTTP/1.1 200 OK', '...', 'etag: "2"'], ['HTTP/1.1 200 OK', 'etag: "3"'], false],
    [['...'], [], true],
    [['a.b'], ['aXb'], false],
  ])('%j against %j: %s', (shown, printed, matches) => {
    expect(outputMatches(shown, printed)).toBe(matches);
  });

  it('compares values that change from run to run by their shape', () => {
    expect(normalize('{"updated":"2026-11-25T22:10:11.991Z","created":"2026-11-25"}')).toBe('{"updated":"<timestamp>","created":"<date>"}');
    expect(normalize('x-cursor: 0mwt8zxozq3XhY0v1U8c5lG2b6l0ZkA')).toBe('x-cursor: <cursor>');
    expect(normalize('created key ... KEY=mrs_FniZe31OScoKwURd_6KV1TVapjr0zWbdoMkzlxo5SYczWAO2wFPdz7eSSNlj')).toBe(
      'created key ... KEY=<api-key>',
    );
    expect(normalize('wh_IG3dksDPaNOAxbyf  http://x   work_orders')).toBe('<webhook-id> http://x work_orders');
    expect(outputMatches(['"access_token":"eyJa.eyJb.c"'], ['"access_token":"eyJx-y.eyJz.w_v"'])).toBe(true);
    expect(normalize('"refresh_token":"mrsr.demo.main.GUAhS5OVpVbXC2vX0aL0DQUT9yQ6oRj2Q2aWLTqMEIy"')).toBe(
      '"refresh_token":"<refresh-token>"',
    );
  });
});
