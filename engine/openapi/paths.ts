import { ATTACHED_FILES } from '../files/definition.ts';
import { ROUTES } from '../http/route-table.ts';
import type { Registry, Resource } from '../registry.ts';
import { OPERATION_DOCS, type OperationSite } from './operations.ts';
import { idParameter } from './parameters.ts';

type Json = Record<string, unknown>;

/** A path item from one row of the route table: the same table that answers 405 and Allow. */
function pathItem(kind: keyof typeof ROUTES, site: OperationSite, parameters: Json[]): Json {
  const item: Json = parameters.length ? { parameters } : {};
  for (const [method, route] of Object.entries(ROUTES[kind])) {
    item[method.toLowerCase()] = { tags: [site.resource.name], ...OPERATION_DOCS[route.op](site) };
  }
  return item;
}

/** Every collection, record and child-collection path of the registry under `{basePath}/maintenance`. */
export function collectionPaths(registry: Registry, basePath: string): Record<string, Json> {
  const paths: Record<string, Json> = {};
  const m = `${basePath}/maintenance`;
  for (const resource of registry.resources.values()) {
    if (resource.name === ATTACHED_FILES) continue; // served under parents only: files-paths.ts
    paths[`${m}/${resource.name}`] = pathItem('collection', { resource }, []);
    paths[`${m}/${resource.name}/{id}`] = pathItem('record', { resource }, [idParameter('id', resource.name)]);
    for (const [childName, field] of resource.children) {
      const child: Resource = registry.get(childName)!;
      paths[`${m}/${resource.name}/{id}/${childName}`] = pathItem('child', { resource: child, parent: { resource, field } }, [
        idParameter('id', resource.name),
      ]);
    }
  }
  return paths;
}
