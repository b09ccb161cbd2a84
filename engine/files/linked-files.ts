import type { Caller } from '../http/caller.ts';
import type { Resource } from '../registry.ts';
import { FILES_LINKED_NAME } from './definition.ts';
import type { FileLinks } from './options.ts';

type Linked = { id: number; linked?: { Files?: { id: number; content_url?: string }[] } };

/**
 * `$linked=Files` as a parent's file list shows its files: each with its signed `content_url`
 * where the host signs links, which the database, writing the page's JSON, cannot. `linked`: the
 * `$linked` names the JSON was shaped with; without `Files` it is answered as it is, unread.
 */
export function signLinkedFiles(
  json: string,
  parent: Resource,
  parentPath: string,
  caller: Caller,
  links: FileLinks | undefined,
  linked: readonly string[] | undefined,
): string | Promise<string> {
  if (!links || parent.definition.files === undefined || !linked?.includes(FILES_LINKED_NAME)) return json;
  return signed(json, parentPath, caller, links);
}

async function signed(json: string, parentPath: string, caller: Caller, links: FileLinks): Promise<string> {
  const shown = JSON.parse(json) as Linked | Linked[];
  for (const record of Array.isArray(shown) ? shown : [shown])
    for (const file of record.linked?.Files ?? [])
      file.content_url = await links.sign(caller, `${parentPath}/${record.id}/attached_files/${file.id}/content`);
  return JSON.stringify(shown);
}
