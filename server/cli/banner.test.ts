import { describe, expect, it } from 'vitest';
import { banner } from './banner.ts';

const BASE = '/v4_server/external/v1';

describe('the start banner', () => {
  it('names the API base, the docs page and how to get a key', () => {
    expect(banner({ scheme: 'http', host: '127.0.0.1', port: 8080, basePath: BASE })).toEqual([
      `mrs serving http://127.0.0.1:8080${BASE}`,
      `  API docs:   http://127.0.0.1:8080${BASE}/docs`,
      '  API key:    npx mrs key create demo.main admin',
    ]);
  });

  it.each([
    ['0.0.0.0', 'https://localhost:8443'],
    ['::', 'https://localhost:8443'],
    ['::1', 'https://[::1]:8443'],
    ['records.example.com', 'https://records.example.com:8443'],
  ])('shows HOST %s as an address a browser opens', (host, origin) => {
    expect(banner({ scheme: 'https', host, port: 8443, basePath: BASE })[1]).toBe(`  API docs:   ${origin}${BASE}/docs`);
  });

  it("names the settings the key's command must share with the server, never their values", () => {
    const at = { scheme: 'http', host: '127.0.0.1', port: 8080, basePath: BASE };
    expect(banner(at, ['DATABASE_URL'])[2]).toBe("  API key:    npx mrs key create demo.main admin   (with this server's DATABASE_URL)");
    expect(banner(at, ['DATA_DIR'])[2]).toBe("  API key:    npx mrs key create demo.main admin   (with this server's DATA_DIR)");
  });

  it('prints no URL that answers 401 in a browser (nothing under /maintenance)', () => {
    expect(banner({ scheme: 'http', host: '127.0.0.1', port: 1, basePath: BASE }).join('\n')).not.toContain('/maintenance');
  });
});
