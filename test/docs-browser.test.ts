import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Listening } from '../server/node-server.ts';
import { makeWorkOrder } from './support/fixtures.ts';
import { BASE, M, startHarness } from './support/harness.ts';

// Debian's chromium, never a downloaded browser build. CI installs it (.ci/run) and must run this.
const CHROMIUM = '/usr/bin/chromium';
const present = existsSync(CHROMIUM);
if (!present && process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing: CI must run the browser test (apt-get install -y chromium)`);
if (!present) console.warn(`[docs-browser] skipped: ${CHROMIUM} is not installed (apt-get install -y chromium)`);

describe.skipIf(!present)('the /docs page in headless Chromium', () => {
  let started: Awaited<ReturnType<typeof startHarness>>;
  let l: Listening;
  let browser: Browser;
  beforeAll(async () => {
    started = await startHarness('sqlite', { env: { PORT: '0' } });
    l = await listen(started.harness.service);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await l?.stop();
    await started?.cleanup();
  });

  it('lists the collections and runs an authenticated list call with a pasted token', async () => {
    const h = started.harness;
    const wo = await makeWorkOrder(h, { description: 'seen from the docs page' });
    const origin = `http://127.0.0.1:${l.port}`;
    const page = await browser.newPage();
    const requested: string[] = [];
    const listCalls: { authorization: string | undefined }[] = [];
    page.on('request', (r) => {
      requested.push(r.url());
      if (new URL(r.url()).pathname === `${M}/work_orders`) listCalls.push({ authorization: r.headers().authorization });
    });

    await page.goto(`${origin}${BASE}/docs`);
    await page.locator('h3.opblock-tag').first().waitFor();
    const tags = await page.locator('h3.opblock-tag').evaluateAll((els) => els.map((e) => e.getAttribute('data-tag')));
    expect(tags).toEqual(expect.arrayContaining(['work_orders', 'notes', 'service_requests']));

    // Paste the token as a user would: Authorize, the bearer value, Authorize, Close.
    await page.locator('.auth-wrapper button.authorize').click();
    await page.locator('.modal-ux input').first().fill(h.token!);
    await page.locator('.modal-ux button.authorize').click();
    await page.locator('.modal-ux button.btn-done').click();

    const op = page.locator('#operations-work_orders-list_work_orders');
    await op.locator('.opblock-summary').first().click();
    await op.locator('button.try-out__btn').click();
    await op.locator('button.execute').click();
    const status = op.locator('.live-responses-table tr.response .response-col_status').first();
    await status.waitFor();
    expect((await status.innerText()).trim()).toBe('200');
    expect(await op.locator('.live-responses-table tr.response .response-col_description').first().innerText()).toContain('seen from the docs page');

    expect(listCalls.length).toBeGreaterThan(0);
    expect(listCalls.at(-1)!.authorization).toBe(`Bearer ${h.token}`);
    expect(wo.description).toBe('seen from the docs page');
    // Served from the package's own files: nothing is fetched from anywhere else.
    expect(requested.filter((u) => !u.startsWith(origin) && !u.startsWith('data:'))).toEqual([]);
    await page.close();
  });
});
