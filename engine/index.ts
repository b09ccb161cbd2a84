export { boolean, date, defineResource, integer, string, timestamp } from './define.ts';
export type { CreateBodyOf, FieldDef, FieldKind, PatchBodyOf, RecordOf, ReplaceBodyOf, ResourceDefinition } from './define.ts';
export {
  createEngine,
  DEFAULT_BASE_PATH,
  type ApiDocsOptions,
  type BeforeRequest,
  type DbCaller,
  type DbEngine,
  type DbEngineOptions,
  type Engine,
  type EngineOptions,
  type TenantsEngineOptions,
} from './create-engine.ts';
export { tenantDb, type TenantDbOptions } from './tenant-db.ts';
export type { TenantDb } from './dialects/index.ts';
export { EngineError, type ProblemCode, type ProblemItem } from './errors.ts';
export { problemResponse } from './http/problem.ts';
export { allowAll, type Caller, type ResolveCaller } from './http/caller.ts';
export type { Action } from './http/route-table.ts';
export type { Registry, Resource } from './registry.ts';
export type { DocsAsset, DocsAssets, OpenApiOptions } from './openapi/index.ts';
export { MigrationRefused, StepFailed, type MigrationStep, type StepContext, type TablePlan, type TenantPlan } from './schema/index.ts';
export { limitCaller, rateLimitHeaders, type RateLimiter, type WindowState } from './rate-limit.ts';
