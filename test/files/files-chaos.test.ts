import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { s3FileStore } from '../../adapters/files/s3-store.ts';
import { WORK_ORDER } from '../support/fixtures.ts';
import { M } from '../support/harness.ts';
import { freshPostgresDatabase, TEST_DATABASE_URL } from '../support/pg.ts';
import { startS3 } from '../support/s3.ts';
import { chaosBase as base, chaosEnv, Fleet, mrs, pause } from '../support/fleet.ts';
import { Hung } from '../support/hang.ts';

/**
 * Acknowledged uploads survive crashes (SPEC 13, content before metadata): clients upload files
 * of 1 KB to 20 MB to `mrs serve` processes while one is killed with SIGKILL three times (and
 * restarted). Afterwards every upload answered 201 is downloaded byte for byte, none answered
 * with an error is listed, one cut off by a kill is absent or whole, and after `mrs files sweep`
 * the store holds exactly the bytes the file rows name, unfinished writes included.
 */
const CLIENTS = 3;
const KILLS = 3;
const MAX_BYTES = 20 * 1024 * 1024;

interface Sent {
  readonly filename: string;
  readonly sha256: string;
  readonly size: number;
  /** 201, another status, or cut: the connection failed or broke before an answer. */
  readonly answer: number | 'cut';
}

/** Sizes from 1 KB to 20 MB, spread evenly over their logarithm. */
const randomSize = () => Math.floor(1024 * Math.pow(MAX_BYTES / 1024, Math.random()));

async function chaos(env: Record<string, string>, processes: number) {
  const fleet = new Fleet(chaosEnv({ ...env, FILE_MAX_BYTES: String(MAX_BYTES) }));
  await fleet.start(processes);
  try {
    const token = await fleet.adminToken();
    const auth = { authorization: `Bearer ${token}` };
    const made = await fleet.request(
      `${M}/work_orders`,
      { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(WORK_ORDER) },
      (r) => r.json() as Promise<{ id: number }>,
    );
    const parent = `${M}/work_orders/${made.id}`;
    const sent: Sent[] = [];
    // A kill cuts its uploads at once: one a live process leaves unanswered is a hang, the test's failure.
    const hung: Error[] = [];
    const send = async (c: number, n: number, size: number) => {
      const bytes = randomBytes(size);
      const filename = `client${c}-${n}.bin`;
      const body = new FormData();
      body.append('data', new Blob([bytes]), filename);
      let answer: Sent['answer'];
      try {
        answer = await fleet.request(`${parent}/attached_files`, { method: 'POST', headers: auth, body }, async (r) => {
          await r.arrayBuffer();
          return r.status;
        });
      } catch (e) {
        if (e instanceof Hung) hung.push(e);
        answer = 'cut';
        await pause(50);
      }
      sent.push({ filename, sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length, answer });
    };
    // The largest size once before the kills begin, so that one is surely acknowledged.
    await send(CLIENTS, 0, MAX_BYTES);
    let running = true;
    const client = async (c: number) => {
      for (let n = 0; running; n++) await send(c, n, randomSize());
    };
    const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
    for (let k = 0; k < KILLS; k++) {
      await pause(1500);
      await fleet.killOne();
    }
    await pause(1000);
    running = false;
    await Promise.all(clients);
    if (hung.length > 0) throw new Error(hung.map((e) => e.message).join('\n'));

    type Listed = { id: number; filename: string; sha256: string; size: number }[];
    const get = <T>(path: string, read: (r: Response) => Promise<T>) => fleet.request(path, { headers: auth }, read);
    const first = await get(`${parent}/attached_files?$deleted=true&$limit=50`, async (r) => ({
      rows: (await r.json()) as Listed,
      total: Number(r.headers.get('x-total')),
      cursor: r.headers.get('x-cursor'),
    }));
    const listed = [...first.rows];
    for (let page = 2; page <= Math.ceil(first.total / 50); page++)
      listed.push(...(await get(`${parent}/attached_files?$cursor=${first.cursor}&$page=${page}`, (r) => r.json() as Promise<Listed>)));
    const downloaded = new Map<string, { sha256: string; size: number }>();
    for (const f of listed) {
      const content = Buffer.from(await get(`${parent}/attached_files/${f.id}/content`, (r) => r.arrayBuffer()));
      downloaded.set(f.filename, { sha256: createHash('sha256').update(content).digest('hex'), size: content.length });
    }
    return { sent, listed, downloaded, named: new Set(listed.map((f) => f.sha256)) };
  } catch (e) {
    throw await fleet.stopAfter(e);
  } finally {
    await fleet.stop();
  }
}

function expectKept(outcome: Awaited<ReturnType<typeof chaos>>) {
  const { sent, listed, downloaded } = outcome;
  const acknowledged = sent.filter((s) => s.answer === 201);
  const summary = JSON.stringify(sent.map((s) => [s.size, s.answer]));
  expect(acknowledged.length, summary).toBeGreaterThan(3);
  expect(
    acknowledged.some((s) => s.size === MAX_BYTES),
    summary,
  ).toBe(true);
  expect(
    sent.some((s) => s.answer === 'cut'),
    summary,
  ).toBe(true);
  expect(new Set(listed.map((f) => f.filename)).size).toBe(listed.length);
  for (const s of sent) {
    const got = downloaded.get(s.filename);
    if (s.answer === 201) expect(got, s.filename).toEqual({ sha256: s.sha256, size: s.size });
    else if (s.answer === 'cut') {
      if (got) expect(got, s.filename).toEqual({ sha256: s.sha256, size: s.size });
    } else expect(got, `${s.filename} answered ${s.answer}`).toBeUndefined();
  }
  const names = new Set(sent.map((s) => s.filename));
  for (const f of listed) expect(names.has(f.filename), f.filename).toBe(true);
}

/** Every file under a directory, relative to it. */
const filesUnder = (dir: string, at = ''): string[] =>
  readdirSync(join(dir, at), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(dir, join(at, e.name)) : [join(at, e.name)],
  );

/** Sets every file under a directory two hours back (whole seconds): past the sweep's hour. */
function age(dir: string) {
  const old = new Date(Math.floor(Date.now() / 1000) * 1000 - 2 * 3_600_000);
  for (const f of filesUnder(dir)) utimesSync(join(dir, f), old, old);
}

const cleanups: (() => Promise<unknown> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe('attached files under chaos', () => {
  it('the disk store, SQLite, one process killed three times: acknowledged uploads whole, the rest absent or whole, the sweep leaves only named bytes', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mrs-files-chaos-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = { ...base(), DATA_DIR: dataDir };
    const outcome = await chaos(env, 1);
    expectKept(outcome);
    const root = join(dataDir, 'files');
    age(root);
    await mrs(['files', 'sweep'], chaosEnv(env));
    const left = filesUnder(root);
    expect(left.filter((f) => f.split('/').includes('tmp'))).toEqual([]);
    expect(new Set(left.map((f) => f.split('/').pop()))).toEqual(outcome.named);
  }, 240_000);

  it.skipIf(!TEST_DATABASE_URL)(
    'the S3 store, PostgreSQL, two processes, one killed three times: the same, counted in the bucket',
    async () => {
      const db = await freshPostgresDatabase();
      cleanups.push(db.drop);
      const s3 = await startS3('mrs-chaos');
      cleanups.push(() => s3.stop());
      const dataDir = mkdtempSync(join(tmpdir(), 'mrs-files-chaos-'));
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      const env = {
        ...base(),
        DATA_DIR: dataDir,
        DATABASE_URL: db.url,
        FILE_STORE: 's3',
        S3_ENDPOINT: s3.endpoint,
        S3_BUCKET: 'mrs-chaos',
        S3_REGION: 'us-east-1',
        S3_FORCE_PATH_STYLE: 'true',
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
      };
      const outcome = await chaos(env, 2);
      expectKept(outcome);
      age(s3.directory);
      await mrs(['files', 'sweep'], chaosEnv(env));
      const left: (string | undefined)[] = [];
      for await (const o of s3FileStore(s3.options).list()) left.push(o.sha256);
      expect(left.filter((sha) => sha === undefined)).toEqual([]);
      expect(new Set(left)).toEqual(outcome.named);
      expect(left).toHaveLength(outcome.named.size);
    },
    240_000,
  );
});
