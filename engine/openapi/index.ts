export { openApiDocument, type OpenApiOptions } from './document.ts';
