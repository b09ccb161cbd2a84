import { Hono } from 'hono';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { openApiDocument } from '../engine/openapi/index.ts';
import type { Registry } from '../engine/registry.ts';

/** The files of swagger-ui-dist the page needs, served from the installed package (no CDN). */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

const distDir = () => dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const page = (docs: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Maintenance records API</title>
<link rel="stylesheet" href="${docs}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${docs}/swagger-ui-bundle.js"></script>
<script src="${docs}/init.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the document to an outside validator.
const init = (documentUrl: string) => `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(documentUrl)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  docExpansion: 'list',
  persistAuthorization: true,
  displayRequestDuration: true,
  validatorUrl: null,
});
`;

/** `{base}/openapi.json` (generated once from the registry) and the `{base}/docs` page with its assets. */
export function apiDocsRoutes(registry: Registry, basePath: string): Hono {
  const app = new Hono();
  let document: string | undefined;
  const files = new Map<string, string>();
  const docs = `${basePath}/docs`;
  app.get(`${basePath}/openapi.json`, function openApi(c) {
    document ??= JSON.stringify(openApiDocument(registry, { basePath }));
    return c.body(document, 200, { 'content-type': 'application/json' });
  });
  app.get(docs, (c) => c.html(page(docs)));
  // init.js is answered by the asset route, not a route of its own: a static route beside a
  // parameter at the same place keeps Hono from using its fastest router (RegExpRouter) for
  // the whole service, /maintenance included.
  app.get(`${docs}/:asset`, function asset(c) {
    const name = c.req.param('asset');
    if (name === 'init.js') return c.body(init(`${basePath}/openapi.json`), 200, { 'content-type': 'text/javascript; charset=utf-8' });
    const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (type === undefined) return c.notFound();
    let bytes = files.get(name);
    if (!bytes) files.set(name, (bytes = readFileSync(join(distDir(), name), 'utf8')));
    return c.body(bytes, 200, { 'content-type': type, 'cache-control': 'public, max-age=3600' });
  });
  return app;
}
