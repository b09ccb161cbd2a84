import { jwtVerify, SignJWT } from 'jose';
import { CLIENT_DB } from '../tenants/client-db.ts';
import { KEY_ID } from './keys.ts';
import { USERNAME } from './names.ts';

/** The one algorithm tokens are made and checked with; a token naming any other (or `none`) fails. */
export const TOKEN_ALG = 'HS256';

export interface TokenClaims {
  /** The username. */
  readonly sub: string;
  readonly client_db: string;
  readonly key_id: string;
}

export interface Tokens {
  readonly ttlS: number;
  sign(claims: TokenClaims): Promise<string>;
  /** The claims of a valid token, or undefined for anything else (bad signature, expired, wrong shape). */
  verify(token: string): Promise<TokenClaims | undefined>;
  /** verify, with when the token expires (epoch ms): an event stream ends then. */
  check(token: string): Promise<VerifiedToken | undefined>;
}

export interface VerifiedToken {
  readonly claims: TokenClaims;
  /** The token's `exp`, in epoch milliseconds. */
  readonly expMs: number;
}

/** Tokens signed with the secret `loadSecret` gives, read on first use (so commands that never sign never read it). */
export function createTokens(loadSecret: () => Promise<string>, ttlS: number): Tokens {
  let loaded: Promise<Uint8Array> | undefined;
  // A token verified once stays valid until its exp (revocation is the key state's job), so
  // repeat calls skip the signature check: a bounded map of token -> claims and exp.
  const verified = new Map<string, VerifiedToken>();
  const MAX_VERIFIED = 10_000;
  const signingKey = () => {
    if (!loaded) {
      const p = loadSecret().then((s) => new TextEncoder().encode(s));
      p.catch(() => loaded === p && (loaded = undefined));
      loaded = p;
    }
    return loaded;
  };
  const tokens: Tokens = {
    ttlS,
    verify: async (token) => (await tokens.check(token))?.claims,
    async sign(claims) {
      const key = await signingKey();
      // The second rounded up: exp is at least ttlS away, so an `expires_in` of ttlS never promises more than the token lives.
      const iat = Math.ceil(Date.now() / 1000);
      return new SignJWT({ client_db: claims.client_db, key_id: claims.key_id })
        .setProtectedHeader({ alg: TOKEN_ALG, typ: 'JWT' })
        .setSubject(claims.sub)
        .setIssuedAt(iat)
        .setExpirationTime(iat + ttlS)
        .sign(key);
    },
    async check(token) {
      const hit = verified.get(token);
      if (hit) {
        if (hit.expMs > Date.now()) return hit;
        verified.delete(token);
        return undefined;
      }
      const key = await signingKey();
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: [TOKEN_ALG], requiredClaims: ['sub', 'iat', 'exp'] });
        const { sub, client_db, key_id } = payload;
        if (typeof sub !== 'string' || !USERNAME.test(sub)) return undefined;
        if (typeof client_db !== 'string' || !CLIENT_DB.test(client_db)) return undefined;
        if (typeof key_id !== 'string' || !KEY_ID.test(key_id)) return undefined;
        const checked = { claims: { sub, client_db, key_id }, expMs: payload.exp! * 1000 };
        if (verified.size >= MAX_VERIFIED) verified.delete(verified.keys().next().value!);
        verified.set(token, checked);
        return checked;
      } catch {
        return undefined;
      }
    },
  };
  return tokens;
}
