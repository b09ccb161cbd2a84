import { afterEach, beforeEach, vi } from 'vitest';
import { main } from '../../server/cli/main.ts';

/** Runs `mrs` in this process with the given environment, capturing stdout and stderr apart. */
export function useCli(env: () => Record<string, string>) {
  const saved = { ...process.env };
  let out = '';
  let err = '';
  beforeEach(() => {
    Object.assign(process.env, env());
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((err += String(chunk)), true));
    vi.spyOn(console, 'error').mockImplementation((...args) => void (err += args.join(' ') + '\n'));
    vi.spyOn(console, 'log').mockImplementation((...args) => void (out += args.join(' ') + '\n'));
  });
  afterEach(() => {
    vi.restoreAllMocks();
    for (const k of Object.keys(env())) delete process.env[k];
    Object.assign(process.env, saved);
  });
  return async (...argv: string[]) => {
    out = '';
    err = '';
    const code = await main(argv);
    return { code, out, err };
  };
}

export const oneLine = (text: string) => text.trim().length > 0 && !text.trim().includes('\n');
