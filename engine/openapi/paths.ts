import { ROUTES } from '../http/route-table.ts';
import type { Registry, Resource } from '../registry.ts';
import { OPERATION_DOCS, type OperationSite } from './operations.ts';
import { idParameter } from './parameters.ts';

type Json = Record<string, unknown>;

/** Operation ids stay unique across path shapes that run the same operation. */
const OPERATION_ID: Partial<Record<keyof typeof ROUTES, (id: string, site: OperationSite) => string>> = {
  childRecord: (id, site) => `${id}_of_${site.parent!.resource.name}`,
  bulkCollection: (id) => `bulk_${id}`,
  bulkRecord: (id) => `bulk_${id}`,
};

/** A path item from one row of the route table: the same table that answers 405 and Allow. */
function pathItem(kind: keyof typeof ROUTES, site: OperationSite, parameters: Json[]): Json {
  const item: Json = parameters.length ? { parameters } : {};
  for (const [method, route] of Object.entries(ROUTES[kind])) {
    const docs = OPERATION_DOCS[route.op](site);
    const rename = OPERATION_ID[kind];
    if (rename) docs.operationId = rename(docs.operationId as string, site);
    item[method.toLowerCase()] = { tags: [site.resource.name], ...docs };
  }
  return item;
}

/** Every collection, record and child path of the registry, in each collection's group, and their `/bulk` paths. */
export function collectionPaths(registry: Registry, basePath: string): Record<string, Json> {
  const paths: Record<string, Json> = {};
  for (const resource of registry.resources.values()) {
    if (resource.underParents) continue; // files-paths.ts
    const at = `${basePath}${resource.path}`;
    const id = idParameter('id', resource.name);
    paths[at] = pathItem('collection', { resource }, []);
    paths[`${at}/{id}`] = pathItem('record', { resource }, [id]);
    for (const [childName, field] of resource.children) {
      const child: Resource = registry.get(childName)!;
      const site = { resource: child, parent: { resource, field } };
      paths[`${at}/{id}/${childName}`] = pathItem('child', site, [id]);
      paths[`${at}/{id}/${childName}/{child_id}`] = pathItem('childRecord', site, [id, idParameter('child_id', childName)]);
    }
  }
  for (const resource of registry.resources.values()) {
    if (resource.underParents) continue;
    const at = `${basePath}/bulk${resource.path}`;
    paths[at] = pathItem('bulkCollection', { resource }, []);
    paths[`${at}/{id}`] = pathItem('bulkRecord', { resource }, [idParameter('id', resource.name)]);
  }
  return paths;
}
