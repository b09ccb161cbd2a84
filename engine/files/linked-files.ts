import type { Caller } from '../http/caller.ts';
import type { Resource } from '../registry.ts';
import type { FileLinks } from './options.ts';

type Linked = { id: number; linked?: { Files?: { id: number; content_url?: string }[] } };

/**
 * `$linked=Files` as a parent's file list shows its files: each with its signed `content_url`
 * where the host signs links, which the database, writing the page's JSON, cannot.
 */
export async function signLinkedFiles(
  json: string,
  parent: Resource,
  parentPath: string,
  caller: Caller,
  links: FileLinks | undefined,
): Promise<string> {
  // Unescaped, `"Files":[` is only the key of linked files: no field holds an object or an unescaped quote.
  if (!links || parent.definition.files === undefined || !json.includes('"Files":[')) return json;
  const shown = JSON.parse(json) as Linked | Linked[];
  for (const record of Array.isArray(shown) ? shown : [shown])
    for (const file of record.linked?.Files ?? [])
      file.content_url = await links.sign(caller, `${parentPath}/${record.id}/attached_files/${file.id}/content`);
  return JSON.stringify(shown);
}
