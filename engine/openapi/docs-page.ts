/** The interactive docs page (Swagger UI) at `{base}/docs`: markup and start-up script, nothing runtime-specific. */

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The page; its script and style come from `{docs}/...` (DocsAssets), its settings from `{docs}/init.js`. */
export const docsPage = (docs: string, title: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${escapeHtml(docs)}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${escapeHtml(docs)}/swagger-ui-bundle.js"></script>
<script src="${escapeHtml(docs)}/init.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the document to an outside validator.
export const docsInit = (documentUrl: string) => `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(documentUrl)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  docExpansion: 'list',
  persistAuthorization: true,
  displayRequestDuration: true,
  validatorUrl: null,
});
`;
