import type { ListPage } from '../operations/list.ts';

/**
 * `X-Cursor`, `X-Total`, `X-Change-Seq` (where the feed continues: SPEC 9) and `Link` of a list answer. Link paths are absolute (base path
 * included), carry only `$cursor` and `$page`, with a literal `$`, on one line.
 */
export function listHeaders(path: string, page: ListPage): Record<string, string> {
  const headers: Record<string, string> = { 'x-cursor': page.cursor, 'x-total': String(page.total) };
  if (page.changeSeq !== undefined) headers['x-change-seq'] = String(page.changeSeq);
  if (page.total === 0) return headers;
  const last = Math.ceil(page.total / page.limit);
  const link = (n: number, rel: string) => `<${path}?$cursor=${page.cursor}&$page=${n}>; rel="${rel}"`;
  const items = [link(1, 'first')];
  if (page.page > 1) items.push(link(Math.min(page.page - 1, last), 'prev'));
  if (page.page < last) items.push(link(page.page + 1, 'next'));
  items.push(link(last, 'last'));
  headers.link = items.join(', ');
  return headers;
}
