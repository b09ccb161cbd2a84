import { readFileSync, cpSync, rmSync } from 'node:fs';
import autocannon from 'autocannon';
import { bearer } from './support/auth.ts';
import { startProcess, SERVE } from './support/processes.ts';
import { serveEnv } from './support/demo.ts';
const key = readFileSync(process.env.XKEY ?? '/tmp/key', 'utf8').trim();
const port = 18900;
const cpu = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10000; };
const mem = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
for (let round = 0; round < Number(process.env.XR ?? 2); round++) {
  const dir = '/tmp/dd-order'; rmSync(dir, { recursive: true, force: true }); cpSync(process.env.XDIR ?? '/tmp/dd', dir, { recursive: true });
  const s = await startProcess(SERVE, serveEnv(dir, port), `http://127.0.0.1:${port}/healthz`);
  const h = await bearer(`http://127.0.0.1:${port}`, key);
  const M = `http://127.0.0.1:${port}/v4_server/external/v1/maintenance`;
  const first = await fetch(`${M}/work_orders?department_id=7&status=open`, { headers: h });
  const cursor = first.headers.get('x-cursor');
  const run = async (label: string, url: string, sec = 4) => { const c0 = cpu(s.pid!); const r = await autocannon({ url, connections: 50, duration: sec, headers: h }); console.log(label.padEnd(8), Math.round(r.requests.average), 'req/s', ((cpu(s.pid!) - c0) / r.requests.total).toFixed(1), 'us CPU/req', mem(s.pid!).toFixed(0), 'MiB'); };
  for (let i = 0; i < 3; i++) await run('read', `${M}/work_orders/12345`);
  if (!process.env.XONLYREAD) await run('search', `${M}/work_orders?department_id=7&status=open`, 12);
  if (!process.env.XONLYREAD) await run('page', `${M}/work_orders?$cursor=${cursor}&$page=3`, 12);
  for (let i = 0; i < 3; i++) await run('read', `${M}/work_orders/12345`);
  s.kill(); await new Promise((r) => s.once('exit', r));
}
