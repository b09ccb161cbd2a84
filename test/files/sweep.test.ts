import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { makeWorkOrder } from '../support/fixtures.ts';
import { useCli } from '../support/cli.ts';
import { form, send, upload } from '../support/files.ts';
import { describeEachDatabase, M } from '../support/harness.ts';

/** Every file under a directory, recursively, as paths relative to it. */
const filesUnder = (dir: string, at = ''): string[] =>
  readdirSync(join(dir, at), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(dir, join(at, e.name)) : [join(at, e.name)],
  );

describeEachDatabase('mrs files sweep', (h) => {
  const mrs = useCli(() => ({ DATA_DIR: h().service.config.dataDir, DATABASE_URL: h().service.config.databaseUrl ?? '' }));

  it('removes bytes no file names, older than an hour, and unfinished writes; never bytes a file (deleted or not) names', async () => {
    const root = join(h().service.config.dataDir, 'files');
    const wo = await makeWorkOrder(h());
    const kept = await upload(h(), `${M}/work_orders/${wo.id}`, form('kept bytes', 'kept.txt'));
    const deleted = await upload(h(), `${M}/work_orders/${wo.id}`, form('deleted bytes', 'deleted.txt'));
    expect((await h().del(deleted.headers.get('location')!)).status).toBe(204);
    // Replaced content leaves its old bytes unnamed.
    const replaced = await upload(h(), `${M}/work_orders/${wo.id}`, form('old bytes', 'replaced.txt'));
    await send(h(), 'PUT', `${replaced.headers.get('location')}/content`, 'new bytes', { 'content-type': 'text/plain' });
    // An unfinished write a crash left behind, and a young unnamed object.
    mkdirSync(join(root, 'demo.main', 'tmp'), { recursive: true });
    writeFileSync(join(root, 'demo.main', 'tmp', 'crashed'), 'half');
    const old = new Date(Date.now() - 2 * 3_600_000);
    for (const f of filesUnder(root)) utimesSync(join(root, f), old, old);
    const young = await upload(h(), `${M}/work_orders/${wo.id}`, form('young bytes', 'young.txt'));
    await h().del(young.headers.get('location')!);
    const before = filesUnder(root).sort();

    const dry = await mrs('files', 'sweep', '--dry-run');
    expect(dry.code, dry.err).toBe(0);
    expect(dry.out).toContain(`would remove demo.main ${replaced.body.sha256} (9 bytes)`);
    expect(dry.out).toMatch(/would remove demo\.main unfinished .*crashed \(4 bytes\)/);
    expect(dry.out.trim().split('\n')).toHaveLength(2);
    expect(filesUnder(root).sort()).toEqual(before);

    const run = await mrs('files', 'sweep');
    expect(run.code, run.err).toBe(0);
    expect(run.err).toMatch(/^removed 2 unreferenced \(13 bytes\)/);
    expect(filesUnder(root)).toHaveLength(before.length - 2);
    for (const r of [kept, replaced]) expect((await send(h(), 'GET', `${r.headers.get('location')}/content`)).status).toBe(200);
    expect((await send(h(), 'GET', `${kept.headers.get('location')}/content`)).text).toBe('kept bytes');
    expect(filesUnder(root).some((f) => f.endsWith(deleted.body.sha256))).toBe(true);
    expect(filesUnder(root).some((f) => f.endsWith(young.body.sha256))).toBe(true);
  });
});
