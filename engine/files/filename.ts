/** Control characters (C0, DEL, C1): never part of a kept filename. */
const CONTROL = /\p{Cc}/gu;

/**
 * A sent filename as kept (SPEC 13): its last path segment (`/` or `\`), control characters
 * stripped (a header or log line must never carry them), surrounding spaces trimmed; 1-255
 * characters and not `.` or `..`. A string, or the problem with it.
 */
export function keptFilename(sent: string): { ok: true; value: string } | { ok: false; message: string } {
  const last = sent.split(/[/\\]/).pop() ?? '';
  const value = last.replace(CONTROL, '').trim();
  const length = [...value].length;
  if (length === 0 || value === '.' || value === '..')
    return { ok: false, message: 'must name the file: its last path segment is empty once control characters are removed' };
  if (length > 255) return { ok: false, message: 'must be at most 255 characters' };
  return { ok: true, value };
}
