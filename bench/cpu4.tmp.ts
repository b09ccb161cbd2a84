// temporary: server CPU per request, a fresh server process per measurement, variants interleaved (ABAB...)
import { readFileSync, cpSync, rmSync } from 'node:fs';
import autocannon from 'autocannon';
import { bearer } from './support/auth.ts';
import { startProcess, SERVE } from './support/processes.ts';
import { serveEnv } from './support/demo.ts';
const key = readFileSync('/tmp/key', 'utf8').trim();
const bins = process.argv.slice(2);
const path = process.env.XPATH ?? '/work_orders/12345';
const cpu = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10000; };
const res: Record<string, number[]> = {};
const port = 18950;
for (let r = 0; r < Number(process.env.XROUNDS ?? 6); r++)
  for (const bin of r % 2 ? [...bins].reverse() : bins) {
    const dir = '/tmp/dd-cpu4'; rmSync(dir, { recursive: true, force: true }); cpSync('/tmp/dd', dir, { recursive: true });
    const s = await startProcess([...SERVE.slice(0, -2), bin, 'serve'], serveEnv(dir, port), `http://127.0.0.1:${port}/healthz`);
    const h = await bearer(`http://127.0.0.1:${port}`, key);
    let p = path;
    if (p.includes('{cursor}')) { const q = await fetch(`http://127.0.0.1:${port}/v4_server/external/v1/maintenance/work_orders?department_id=7&status=open`, { headers: h }); p = p.replace('{cursor}', q.headers.get('x-cursor')!); }
    const url = `http://127.0.0.1:${port}/v4_server/external/v1/maintenance${p}`;
    await autocannon({ url, connections: 50, duration: 2, headers: h });
    const c0 = cpu(s.pid!);
    const out = await autocannon({ url, connections: 50, duration: 4, headers: h });
    (res[bin] ??= []).push((cpu(s.pid!) - c0) / out.requests.total);
    s.kill(); await new Promise((r) => s.once('exit', r));
  }
for (const [v, xs] of Object.entries(res)) { const sorted = [...xs].sort((a, b) => a - b); const m = (sorted[(xs.length - 1) >> 1]! + sorted[xs.length >> 1]!) / 2; console.log(v.padEnd(22), 'median', m.toFixed(1), 'us CPU/req  all', xs.map((x) => x.toFixed(1)).join(' ')); }
