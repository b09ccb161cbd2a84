import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { startProcess } from './support/processes.ts';
const port = 18600;
const cpu = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10000; };
const s = await startProcess(['--import', 'tsx', 'bench/hdr.tmp.ts', String(port)], {}, `http://127.0.0.1:${port}/h1`);
for (let r = 0; r < 3; r++) for (const p of ['h1']) {
  const url = `http://127.0.0.1:${port}/${p}`;
  await autocannon({ url, connections: 50, duration: 2 });
  const c0 = cpu(s.pid!);
  const res = await autocannon({ url, connections: 50, duration: 5 });
  console.log(p, Math.round(res.requests.average), 'req/s', ((cpu(s.pid!) - c0) / res.requests.total).toFixed(1), 'us CPU/req');
}
s.kill();
