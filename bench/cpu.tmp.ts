// temporary: server CPU microseconds per request for bare, floor and the engine's paths
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { bearer } from './support/auth.ts';
import { startProcess, SERVE } from './support/processes.ts';
import { serveEnv } from './support/demo.ts';
const key = readFileSync('/tmp/key', 'utf8').trim();
const port = 18500;
const env = { ...serveEnv("/tmp/dd", port), ...(process.env.RLOFF ? { RATE_LIMIT_STORE: "off" } : {}) };
const cpu = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10000; }; // us (100 Hz ticks)
const server = await startProcess(SERVE, env, `http://127.0.0.1:${port}/healthz`);
const base = await startProcess(['--import', 'tsx', 'bench/servers/baseline.ts', String(port + 1), '/tmp/dd/demo.main.sqlite'], {}, `http://127.0.0.1:${port + 1}/bare`);
const h = await bearer(`http://127.0.0.1:${port}`, key);
const first = await fetch(`http://127.0.0.1:${port}/v4_server/external/v1/maintenance/work_orders?department_id=7&status=open`, { headers: h });
const cursor = first.headers.get('x-cursor');
const M = `http://127.0.0.1:${port}/v4_server/external/v1/maintenance`;
const cases: [string, string, number][] = [
  ['bare', `http://127.0.0.1:${port + 1}/bare`, base.pid!],
  ['floor', `http://127.0.0.1:${port + 1}/floor`, base.pid!],
  ['read', `${M}/work_orders/12345`, server.pid!],
  ['page', `${M}/work_orders?$cursor=${cursor}&$page=3`, server.pid!],
  ['search', `${M}/work_orders?department_id=7&status=open`, server.pid!],
];
const only = process.argv.slice(2);
for (let r = 0; r < 2; r++)
  for (const [label, url, pid] of cases) {
    if (only.length && !only.includes(label)) continue;
    await autocannon({ url, connections: 50, duration: 2, headers: h });
    const c0 = cpu(pid);
    const res = await autocannon({ url, connections: 50, duration: 5, headers: h });
    const used = cpu(pid) - c0;
    console.log(label.padEnd(8), String(Math.round(res.requests.average)).padStart(6), 'req/s', (used / res.requests.total).toFixed(1).padStart(7), 'us CPU/req', (used / 5e6 * 100).toFixed(0), '% CPU');
  }
server.kill(); base.kill();
