// temporary: interleaved server-CPU-per-request of variants (env sets), read by id
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { bearer } from './support/auth.ts';
import { startProcess, SERVE } from './support/processes.ts';
import { serveEnv } from './support/demo.ts';
const key = readFileSync('/tmp/key', 'utf8').trim();
const variants = process.argv.slice(2); // each "NAME=V,NAME2=V" or "-"
const path = process.env.XPATH ?? '/work_orders/12345';
const cpu = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10000; };
const servers = [];
import { cpSync, rmSync as rmS } from 'node:fs';
const dirFor = (i: number) => { const d = `/tmp/dd-v${i}`; rmS(d, { recursive: true, force: true }); cpSync('/tmp/dd', d, { recursive: true }); return d; };
for (const [i, v] of variants.entries()) {
  const port = 18800 + i;
  const extra = v === '-' || !v.includes('=') ? {} : Object.fromEntries(v.split(',').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  const flags = (extra as any).NODEFLAGS ? String((extra as any).NODEFLAGS).split(' ') : [];
  const s = await startProcess(flags.length ? [...flags, 'bin/mrs.js', 'serve'] : process.env.XBIN ? [...SERVE.slice(0, -2), v.startsWith('/') ? v : 'bin/mrs.js', 'serve'] : SERVE, { ...serveEnv(dirFor(i), port), ...extra }, `http://127.0.0.1:${port}/healthz`);
  const h = await bearer(`http://127.0.0.1:${port}`, key);
  let p = path;
  if (p.includes('{cursor}')) { const r = await fetch(`http://127.0.0.1:${port}/v4_server/external/v1/maintenance/work_orders?department_id=7&status=open`, { headers: h }); p = p.replace('{cursor}', r.headers.get('x-cursor')!); }
  servers.push({ v, s, h, url: `http://127.0.0.1:${port}/v4_server/external/v1/maintenance${p}` });
}
const res: Record<string, number[]> = {};
for (let r = 0; r < Number(process.env.XROUNDS ?? 5); r++)
  for (const { v, s, h, url } of r % 2 ? [...servers].reverse() : servers) {
    await autocannon({ url, connections: 50, duration: 1, headers: h });
    const c0 = cpu(s.pid!);
    const out = await autocannon({ url, connections: 50, duration: 3, headers: h });
    (res[v] ??= []).push((cpu(s.pid!) - c0) / out.requests.total);
  }
for (const [v, xs] of Object.entries(res)) { const m = [...xs].sort((a, b) => a - b)[xs.length >> 1]!; console.log(v.padEnd(30), 'median', m.toFixed(1), 'us CPU/req  all', xs.map((x) => x.toFixed(1)).join(' ')); }
for (const { s } of servers) s.kill();
