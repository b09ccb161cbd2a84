import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MRS, serveChild, stopChild } from '../support/serve-child.ts';

const ROOT = join(import.meta.dirname, '../..');

/** The `sh` blocks of one README section (from its `## ` heading to the next). */
function shBlocks(readme: string, heading: string): string {
  const start = readme.indexOf(`\n## ${heading}\n`);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).join('\n');
}

/** Each curl command of a script (continuation lines joined), with the status its comment promises: `# 404`, else any 2xx. */
function expectations(script: string): { command: string; status: RegExp }[] {
  return script
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((l) => l.startsWith('curl '))
    .map((command) => {
      const promised = /#\s*(\d{3})\b/.exec(command);
      return { command, status: promised ? new RegExp(`^${promised[1]}$`) : /^2\d\d$/ };
    });
}

describe('the README examples, run top to bottom on a fresh server', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mrs-readme-'));
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
  };
  delete env.DATABASE_URL;
  let child: ChildProcess;
  let origin = '';
  beforeAll(async () => {
    ({ child, origin } = await serveChild(env));
  });
  afterAll(async () => {
    if (child) await stopChild(child);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('"Try it", "Filtering" and "Following changes" answer what they say, in order', async () => {
    const key = spawnSync(process.execPath, [MRS, 'key', 'create', 'demo.main', 'admin'], { env, encoding: 'utf8' }).stdout.trim();
    const auth = await fetch(`${origin}/v4_server/external/v1/authenticate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: key, client_db: 'demo.main', username: 'admin' }),
    });
    const { access_token } = (await auth.json()) as { access_token: string };
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const script = [shBlocks(readme, 'Try it'), shBlocks(readme, 'Filtering'), shBlocks(readme, 'Following changes')]
      .join('\n')
      .replaceAll('http://127.0.0.1:8080', origin);
    const expected = expectations(script);
    expect(expected.length).toBeGreaterThan(10);
    // Every curl prints only its status, one a line, in order.
    const run = spawnSync(
      'bash',
      ['-c', `curl() { command curl -o /dev/null -w '%{http_code}\\n' "$@"; }\nTOKEN=${access_token}\n${script}`],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    const statuses = run.stdout.trim().split('\n');
    expect(statuses, run.stderr).toHaveLength(expected.length);
    const wrong = expected.filter((e, i) => !e.status.test(statuses[i]!)).map((e) => `${statuses[expected.indexOf(e)]}: ${e.command}`);
    expect(wrong).toEqual([]);
  });
});
