import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Listening } from '../../server/node-server.ts';
import { makeWorkOrder } from '../support/fixtures.ts';
import { BASE, M, startHarness } from '../support/harness.ts';

// Debian's chromium, never a downloaded browser build. CI installs it (.ci/run) and must run this.
const CHROMIUM = '/usr/bin/chromium';
const present = existsSync(CHROMIUM);
if (!present && process.env.CI === 'true')
  throw new Error(`${CHROMIUM} is missing: CI must run the browser test (apt-get install -y chromium)`);
if (!present) console.warn(`[docs-browser] skipped: ${CHROMIUM} is not installed (apt-get install -y chromium)`);

/** A page server on a port of its own: another origin than the API's. */
async function pageServer(): Promise<{ server: Server; origin: string; serve(html: string): void }> {
  let html = '';
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, serve: (h) => void (html = h) };
}

/** Swagger UI as another site would embed it: its files and the document from the API's origin. */
const foreignDocsPage = (api: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Another site</title>
<link rel="stylesheet" href="${api}${BASE}/docs/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="${api}${BASE}/docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: ${JSON.stringify(`${api}${BASE}/openapi.json`)}, dom_id: '#swagger-ui', validatorUrl: null });</script>
</body></html>`;

/** Pastes the token as a user would (Authorize, the bearer value, Authorize, Close), then opens the work-order list's Try it out. */
async function tryListingWorkOrders(page: Page, token: string) {
  await page.locator('.auth-wrapper button.authorize').click();
  await page.locator('.modal-ux input').first().fill(token);
  await page.locator('.modal-ux button.authorize').click();
  await page.locator('.modal-ux button.btn-done').click();
  const op = page.locator('#operations-work_orders-list_work_orders');
  await op.locator('.opblock-summary').first().click();
  await op.locator('button.try-out__btn').click();
  return op;
}

describe.skipIf(!present)('the /docs page in headless Chromium', () => {
  let started: Awaited<ReturnType<typeof startHarness>>;
  let l: Listening;
  let browser: Browser;
  let listed: Awaited<ReturnType<typeof pageServer>>;
  let unlisted: Awaited<ReturnType<typeof pageServer>>;
  beforeAll(async () => {
    listed = await pageServer();
    unlisted = await pageServer();
    started = await startHarness('sqlite', { env: { PORT: '0', CORS_ORIGINS: listed.origin } });
    l = await listen(started.harness.service);
    const api = `http://127.0.0.1:${l.port}`;
    listed.serve(foreignDocsPage(api));
    unlisted.serve('<!doctype html><title>Not listed</title>');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    listed?.server.close();
    unlisted?.server.close();
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
    // The description's <token> is shown as text, not swallowed as an HTML tag.
    expect(await page.locator('.info .description').innerText()).toContain('Authorization: Bearer <token>');
    const tags = await page.locator('h3.opblock-tag').evaluateAll((els) => els.map((e) => e.getAttribute('data-tag')));
    expect(tags).toEqual(expect.arrayContaining(['work_orders', 'notes', 'service_requests']));

    const op = await tryListingWorkOrders(page, h.token!);
    await op.locator('button.execute').click();
    const status = op.locator('.live-responses-table tr.response .response-col_status').first();
    await status.waitFor();
    expect((await status.innerText()).trim()).toBe('200');
    expect(await op.locator('.live-responses-table tr.response .response-col_description').first().innerText()).toContain(
      'seen from the docs page',
    );

    expect(listCalls.length).toBeGreaterThan(0);
    expect(listCalls.at(-1)!.authorization).toBe(`Bearer ${h.token}`);
    expect(wo.description).toBe('seen from the docs page');
    // Served from the package's own files: nothing is fetched from anywhere else.
    expect(requested.filter((u) => !u.startsWith(origin) && !u.startsWith('data:'))).toEqual([]);
    await page.close();
  });

  it('runs "Try it out" from a page on another origin listed in CORS_ORIGINS', async () => {
    const h = started.harness;
    await makeWorkOrder(h, { description: 'seen from another origin' });
    const api = `http://127.0.0.1:${l.port}`;
    const page = await browser.newPage();
    const failed: string[] = [];
    page.on('requestfailed', (r) => failed.push(r.url()));
    await page.goto(`${listed.origin}/`);
    await page.locator('h3.opblock-tag').first().waitFor();
    const op = await tryListingWorkOrders(page, h.token!);
    const call = page.waitForResponse((r) => new URL(r.url()).pathname === `${M}/work_orders` && r.request().method() === 'GET');
    await op.locator('button.execute').click();
    const answered = await call;
    expect(answered.url().startsWith(api)).toBe(true);
    expect(await answered.request().headerValue('authorization')).toBe(`Bearer ${h.token}`);
    const status = op.locator('.live-responses-table tr.response .response-col_status').first();
    await status.waitFor();
    expect((await status.innerText()).trim()).toBe('200');
    const shown = await op.locator('.live-responses-table tr.response .response-col_description').first().innerText();
    expect(shown).toContain('seen from another origin');
    // The page's script may read the exposed headers: Swagger UI lists them with the response.
    expect(shown.toLowerCase()).toContain('x-total');
    expect(failed).toEqual([]);
    await page.close();
  });

  it('refuses the answer to a page on an origin that is not listed', async () => {
    const page = await browser.newPage();
    await page.goto(`${unlisted.origin}/`);
    const url = `http://127.0.0.1:${l.port}${M}/work_orders`;
    const outcome = await page.evaluate(
      async ([u, token]) =>
        fetch(u!, { headers: { authorization: `Bearer ${token}` } }).then(
          (r) => `status ${r.status}`,
          () => 'blocked',
        ),
      [url, started.harness.token] as const,
    );
    expect(outcome).toBe('blocked');
    await page.close();
  });
});
