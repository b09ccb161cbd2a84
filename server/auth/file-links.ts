import { createHmac, timingSafeEqual } from 'node:crypto';
import { EngineError } from '../../engine/errors.ts';
import type { Caller } from '../../engine/http/caller.ts';
import type { FileLinks } from '../../engine/files/options.ts';
import type { AuthenticatedCaller } from './resolver.ts';

/** Who made a link: the key it stands for, checked again on every use (revoked or disabled: dead). */
export interface LinkMaker {
  readonly clientDb: string;
  readonly keyId: string;
  readonly user: string;
}

/**
 * Signed links to a file's content (SPEC 13): `{path}?$expires=..&$signature=..`, the signature
 * an HMAC of the path, the expiry and the key that made it, under the token signing secret: it
 * opens that path only, for GET and HEAD, until it expires and while its key lives.
 */
export function fileLinks(secret: () => Promise<string>, ttlS: number, now: () => number = Date.now) {
  const mac = async (path: string, expires: string, maker: string) =>
    createHmac('sha256', `file-link:${await secret()}`)
      .update(`${path}\n${expires}\n${maker}`)
      .digest('base64url');
  const links: FileLinks = {
    async sign(caller: Caller, path: string) {
      const c = caller as Partial<AuthenticatedCaller>;
      if (c.clientDb === undefined || c.keyId === undefined || c.user === undefined) return undefined;
      const expires = String(Math.floor(now() / 1000) + ttlS);
      const maker = Buffer.from(JSON.stringify([c.clientDb, c.keyId, c.user])).toString('base64url');
      return `${path}?$expires=${expires}&$signature=${maker}.${await mac(path, expires, maker)}`;
    },
  };
  /** The key a signed request stands for; undefined when it is not one; 403 when its link is bad or expired. */
  async function verify(req: Request): Promise<LinkMaker | undefined> {
    const url = new URL(req.url);
    const signature = url.searchParams.get('$signature');
    if (signature === null || (req.method !== 'GET' && req.method !== 'HEAD')) return undefined;
    const expires = url.searchParams.get('$expires') ?? '';
    const [maker = '', given = ''] = signature.split('.');
    const expected = await mac(url.pathname, expires, maker);
    const same = given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
    if (!same || !/^\d{1,12}$/.test(expires) || [...url.searchParams.keys()].some((k) => k !== '$expires' && k !== '$signature'))
      throw forbidden('its signature is not valid for this path');
    if (Number(expires) * 1000 < now()) throw forbidden('it has expired');
    const [clientDb, keyId, user] = JSON.parse(Buffer.from(maker, 'base64url').toString('utf8')) as string[];
    return { clientDb: clientDb!, keyId: keyId!, user: user! };
  }
  return { links, verify };
}

export const forbidden = (why: string) =>
  new EngineError('forbidden', `This file link does not open the file: ${why}. Ask for the file's metadata again for a new content_url.`);
