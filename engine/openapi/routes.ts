import { Hono } from 'hono';
import { docsInit, docsPage } from './docs-page.ts';

/** One file of the docs page's script and style. */
export interface DocsAsset {
  readonly body: string;
  /** Its content type. */
  readonly type: string;
}

/**
 * The docs page's Swagger UI files by name (`swagger-ui.css`, `swagger-ui-bundle.js`), from
 * wherever the host keeps them: on Node and Bun `swaggerUiAssets()` of
 * `maintenance-records/docs` reads the installed swagger-ui-dist. Unknown names: undefined.
 */
export type DocsAssets = (name: string) => DocsAsset | undefined | Promise<DocsAsset | undefined>;

export interface DocsRoutesOptions {
  readonly basePath: string;
  /** The document as JSON text, made on first use. */
  readonly document: () => string;
  /** Without them there is no page, only `openapi.json`. */
  readonly assets?: DocsAssets | undefined;
  readonly title: string;
}

/** `{base}/openapi.json` and, given the assets, the `{base}/docs` page; no authentication (SPEC 1). */
export function docsRoutes(options: DocsRoutesOptions): Hono {
  const { basePath, assets } = options;
  const app = new Hono();
  let document: string | undefined;
  app.get(`${basePath}/openapi.json`, function openApi(c) {
    document ??= options.document();
    return c.body(document, 200, { 'content-type': 'application/json' });
  });
  if (!assets) return app;
  const docs = `${basePath}/docs`;
  const page = docsPage(docs, options.title);
  app.get(docs, (c) => c.html(page));
  // init.js is answered by the asset route, not a route of its own: a static route beside a
  // parameter at the same place keeps Hono from using its fastest router (RegExpRouter) for
  // the whole service, every collection included.
  app.get(`${docs}/:asset`, async function asset(c) {
    const name = c.req.param('asset');
    if (name === 'init.js') return c.body(docsInit(`${basePath}/openapi.json`), 200, { 'content-type': 'text/javascript; charset=utf-8' });
    const file = await assets(name);
    if (!file) return c.notFound();
    return c.body(file.body, 200, { 'content-type': file.type, 'cache-control': 'public, max-age=3600' });
  });
  return app;
}
