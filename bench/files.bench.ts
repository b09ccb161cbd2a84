/**
 * Attached files (`npm run bench -- files`): `mrs serve` on SQLite with the disk store, against
 * floors of the same run on the same disk.
 *   - Uploading and downloading one big file (BENCH_FILE_MB, default 200) against a bare Node
 *     stream copy of the same bytes from one file to another of the same directory, fsynced as
 *     the store fsyncs: throughput ratios, and the server's RSS rise during each (sampled every
 *     20 ms; the target is under 64 MiB).
 *   - 50 concurrent downloads of 1 MB files (50 files) against a bare Hono route streaming the
 *     same files (bench/servers/files-baseline.ts): req/s ratio, baseline measured before and after.
 * Servers are pinned to CPU 0; this process uploads, downloads and runs autocannon.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { get, request } from 'node:http';
import { mkdir, open, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { bearer } from './support/auth.ts';
import { load } from './support/load.ts';
import { rssMiB, runCommand, SERVE, startProcess } from './support/processes.ts';
import { fmt, table } from './support/stats.ts';

const M = '/v4_server/external/v1/maintenance';
const BIG_MB = Number(process.env.BENCH_FILE_MB ?? 200);
const SMALL = 50;

async function fsync(path: string) {
  const h = await open(path, 'r');
  await h.sync();
  await h.close();
}

/** A bare Node stream copy of `from` to a new file beside it, fsynced: seconds. */
async function bareCopy(from: string, to: string): Promise<number> {
  const t0 = performance.now();
  await pipeline(createReadStream(from), createWriteStream(to));
  await fsync(to);
  const s = (performance.now() - t0) / 1000;
  rmSync(to);
  return s;
}

/** Runs `work` while sampling a process's RSS every 20 ms: seconds taken and the rise over the RSS before, MiB. */
async function sampled(pid: number, work: () => Promise<void>): Promise<{ seconds: number; rise: number }> {
  const before = await rssMiB(pid);
  let top = before;
  const timer = setInterval(() => void rssMiB(pid).then((r) => (top = Math.max(top, r))), 20);
  const t0 = performance.now();
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  const seconds = (performance.now() - t0) / 1000;
  top = Math.max(top, await rssMiB(pid));
  return { seconds, rise: top - before };
}

/**
 * A multipart upload of a file through node:http, streamed from disk: the client's own cost kept
 * small (a FormData body costs this process more than the server's whole parse on a busy machine).
 */
function rawUpload(url: string, headers: Record<string, string>, path: string, name: string): Promise<{ id: number; sha256: string }> {
  const boundary = `mrs-bench-${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="data"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': head.length + statSync(path).size + tail.length,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () =>
          res.statusCode === 201 ? resolve(JSON.parse(text)) : reject(new Error(`upload answered ${res.statusCode}: ${text}`)),
        );
      },
    );
    req.on('error', reject);
    req.write(head);
    const file = createReadStream(path, { highWaterMark: 1024 * 1024 });
    file.pipe(req, { end: false });
    file.on('end', () => req.end(tail));
  });
}

/** A PUT of a file's bytes through node:http, streamed from disk. */
function rawPut(url: string, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'PUT', headers: { 'content-length': statSync(path).size } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 201 ? resolve() : reject(new Error(`PUT answered ${res.statusCode}`))));
    });
    req.on('error', reject);
    createReadStream(path, { highWaterMark: 1024 * 1024 }).pipe(req);
  });
}

/** Seconds `work` takes. */
async function timed(work: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await work();
  return (performance.now() - t0) / 1000;
}

/** A GET through node:http, its body counted and dropped: the byte count. */
function rawDownload(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      let n = 0;
      res.on('data', (d: Buffer) => (n += d.length));
      res.on('end', () => resolve(n));
    }).on('error', reject);
  });
}

export async function run(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mrs-bench-files-'));
  const port = 23080;
  const origin = `http://127.0.0.1:${port}`;
  const env = {
    DATA_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: 'silent',
    JWT_SECRET: 'b'.repeat(40),
    RATE_LIMIT_MAX: '1000000000',
    FILE_MAX_BYTES: String((BIG_MB + 1) * 1024 * 1024),
  };
  const stops: (() => void)[] = [];
  try {
    const server = await startProcess(SERVE, env, `${origin}/healthz`);
    stops.push(() => server.kill('SIGTERM'));
    const headers = await bearer(origin, (await runCommand(['bin/mrs.js', 'key', 'create', 'demo.main', 'admin'], env)).trim());
    const wo = await fetch(`${origin}${M}/work_orders`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ department_id: 1, work_order_type_id: 2, work_order_type_group_id: 3 }),
    });
    const files = `${M}/work_orders/${((await wo.json()) as { id: number }).id}/attached_files`;
    const upload = (path: string, name: string) => rawUpload(`${origin}${files}`, headers, path, name);

    const small = join(dataDir, 'small');
    await mkdir(small);
    const baseline = await startProcess(
      ['--import', 'tsx', 'bench/servers/files-baseline.ts', String(port + 1), small],
      {},
      `http://127.0.0.1:${port + 1}/healthz`,
    );
    stops.push(() => baseline.kill('SIGTERM'));
    const httpFloor = `http://127.0.0.1:${port + 2}`;

    // One big file, written in 1 MiB pieces of random bytes (nothing compresses or dedups it).
    const big = join(dataDir, 'big.bin');
    const out = createWriteStream(big);
    for (let i = 0; i < BIG_MB; i++) if (!out.write(randomBytes(1024 * 1024))) await new Promise<void>((r) => out.once('drain', () => r()));
    await new Promise<void>((r) => out.end(() => r()));
    const copy1 = await bareCopy(big, join(dataDir, 'copy.bin'));
    let uploaded: { id: number; sha256: string } | undefined;
    const up = await sampled(server.pid!, async () => void (uploaded = await upload(big, 'big.bin')));
    let got = 0;
    const down = await sampled(
      server.pid!,
      async () => void (got = await rawDownload(`${origin}${files}/${uploaded!.id}/content`, headers)),
    );
    if (got !== BIG_MB * 1024 * 1024) throw new Error(`the download had ${got} bytes`);
    // Checked apart from the timed run: the bytes came back as sent.
    const sha = createHash('sha256');
    await pipeline(createReadStream(big), sha);
    if (sha.digest('hex') !== uploaded!.sha256) throw new Error('the upload differs from the file');
    // What HTTP alone costs here: plain node:http storing the same bytes (fsynced) and sending them back.
    const floorUp = await timed(() => rawPut(`${httpFloor}/floor.bin`, big));
    const floorDown = await timed(() => rawDownload(`${httpFloor}/floor.bin`, {}));
    rmSync(join(small, 'floor.bin'));
    const copy2 = await bareCopy(big, join(dataDir, 'copy.bin'));
    const copy = (copy1 + copy2) / 2;
    const mbps = (s: number) => fmt(BIG_MB / s, 0);
    console.log(
      table([
        [`${BIG_MB} MiB`, 'MiB/s', 'ratio to the copy', 'server RSS rise (MiB)'],
        ['bare Node stream copy, fsynced (mean of before and after)', mbps(copy), '1.00', '-'],
        ['node:http floor: PUT body to a file, fsynced', mbps(floorUp), fmt(copy / floorUp, 2), '-'],
        ['node:http floor: GET a file', mbps(floorDown), fmt(copy / floorDown, 2), '-'],
        ['upload (POST multipart, stored and fsynced)', mbps(up.seconds), fmt(copy / up.seconds, 2), fmt(up.rise, 1)],
        ['download (GET content)', mbps(down.seconds), fmt(copy / down.seconds, 2), fmt(down.rise, 1)],
      ]),
    );

    // 50 files of 1 MB, served by the engine and by bare Hono from the same disk.
    const ids: number[] = [];
    for (let i = 0; i < SMALL; i++) {
      const path = join(small, `f${i}.bin`);
      await writeFile(path, randomBytes(1_000_000));
      ids.push((await upload(path, `f${i}.bin`)).id);
    }
    const bareUrl = `http://127.0.0.1:${port + 1}`;
    const bareRequests = ids.map((_, i) => ({ method: 'GET' as const, path: `/f/f${i}.bin` }));
    const bare1 = await load(bareUrl, { connections: 50, requests: bareRequests });
    const engine = await load(origin, {
      connections: 50,
      headers,
      requests: ids.map((id) => ({ method: 'GET' as const, path: `${files}/${id}/content` })),
    });
    const bare2 = await load(bareUrl, { connections: 50, requests: bareRequests });
    const bare = (bare1.rps + bare2.rps) / 2;
    // Errors are autocannon's 10 s timeouts on a saturated machine; an answer other than 200 is a failure.
    for (const r of [bare1, engine, bare2]) if (r.non2xx) throw new Error(`downloads failed: ${JSON.stringify(r)}`);
    console.log(
      table([
        ['50 concurrent downloads of 1 MB files', 'req/s', 'p99 ms', 'timeouts', 'ratio to bare Hono'],
        ['bare Hono, the same files (before)', fmt(bare1.rps, 0), fmt(bare1.p99, 0), bare1.errors, '-'],
        ['mrs serve, GET .../content', fmt(engine.rps, 0), fmt(engine.p99, 0), engine.errors, fmt(engine.rps / bare, 2)],
        ['bare Hono, the same files (after)', fmt(bare2.rps, 0), fmt(bare2.p99, 0), bare2.errors, '-'],
      ]),
    );
  } finally {
    for (const stop of stops) stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
