export { boolean, date, defineResource, integer, string, timestamp } from './define.ts';
export type { CreateBodyOf, FieldDef, FieldKind, PatchBodyOf, RecordOf, ReplaceBodyOf, ResourceDefinition } from './define.ts';
export { createEngine, DEFAULT_BASE_PATH, type Engine, type EngineOptions } from './create-engine.ts';
export { dialectOf, type Dialect, type TenantDb } from './dialects/index.ts';
export { EngineError, problemResponse, type ProblemCode } from './errors.ts';
export type { Caller, ResolveCaller } from './http/caller.ts';
export type { Action } from './http/route-table.ts';
export type { Registry, Resource } from './registry.ts';
