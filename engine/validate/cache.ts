import type { Resource } from '../registry.ts';
import { bodySchemas, type BodySchemas } from './body.ts';

const cache = new WeakMap<Resource, BodySchemas>();

/** Body schemas are derived once per resource. */
export function schemasOf(resource: Resource): BodySchemas {
  let s = cache.get(resource);
  if (!s) cache.set(resource, (s = bodySchemas(resource)));
  return s;
}
