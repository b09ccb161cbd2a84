/** How a cursor's ordered ids are packed: fixed-width hex, CHUNK ids per row. Pure. */

export const CHUNK = 2048;

/** Hex width of the packed ids: 8 while every id fits 32 bits, else 14 (any safe integer). */
export const NARROW_WIDTH = 8;
export const WIDE_WIDTH = 14;
export const NARROW_LIMIT = 2 ** 32;

/** Positions [start, end) of a page in the snapshot, and the chunks that hold them. */
export function pageSpan(page: number, limit: number, total?: number) {
  const start = (page - 1) * limit;
  const end = total === undefined ? start + limit : Math.min(start + limit, total);
  return { start, end, firstChunk: Math.floor(start / CHUNK), lastChunk: Math.floor(Math.max(start, end - 1) / CHUNK) };
}

/** The ids at positions [start, end) from the chunk rows that hold them. */
export function idsAt(chunks: ReadonlyMap<number, string>, width: number, start: number, end: number): number[] {
  const ids: number[] = [];
  for (let pos = start; pos < end; pos++) {
    const text = chunks.get(Math.floor(pos / CHUNK));
    if (text === undefined) break;
    const at = (pos % CHUNK) * width;
    if (at >= text.length) break;
    ids.push(parseInt(text.slice(at, at + width), 16));
  }
  return ids;
}

/** 128 random bits, URL-safe base64: unguessable and opaque. */
export function newCursorId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
