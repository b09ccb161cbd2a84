export { DEFAULT_TITLE, openApiDocument, type OpenApiOptions } from './document.ts';
export { docsRoutes, type DocsAsset, type DocsAssets } from './routes.ts';
