import { expect, it } from 'vitest';
import { BASE, describeEachDatabase } from '../support/harness.ts';

describeEachDatabase('the service routes requests', (h) => {
  it("with Hono's RegExpRouter: no route shape makes every request go through the slower TrieRouter", async () => {
    const router = h().service.app.router as unknown as { match(method: string, path: string): unknown; activeRouter: { name: string } };
    router.match('GET', '/healthz');
    expect(router.activeRouter.name).toBe('RegExpRouter');
  });

  it('serves the docs page its script, its Swagger UI assets, and 404 for any other name', async () => {
    const init = await h().request('GET', `${BASE}/docs/init.js`, { token: null });
    expect(init.status).toBe(200);
    expect(init.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(init.text).toContain(`${BASE}/openapi.json`);
    const css = await h().request('GET', `${BASE}/docs/swagger-ui.css`, { token: null });
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect((await h().request('GET', `${BASE}/docs/nope.js`, { token: null })).status).toBe(404);
  });
});
