import type { ListPage } from '../operations/list.ts';

/** Headers of a list answer. Cursor pagination adds X-Cursor and Link here. */
export function listHeaders(_basePath: string, _url: URL, page: ListPage): Record<string, string> {
  return { 'x-total': String(page.total) };
}
