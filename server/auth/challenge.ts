import { EngineError } from '../../engine/errors.ts';

/**
 * The 401 of a /maintenance call (RFC 6750): a bare `Bearer` challenge when no token was sent,
 * `error="invalid_token"` when one was. The detail never says which check failed.
 */
export function unauthorized(tokenSent: boolean): EngineError {
  return tokenSent
    ? new EngineError('unauthorized', 'The access token is invalid, expired or revoked; authenticate again.', [], {
        'www-authenticate': 'Bearer error="invalid_token"',
      })
    : new EngineError(
        'unauthorized',
        'An access token is required: send Authorization: Bearer <token> (POST /authenticate gives one).',
        [],
        {
          'www-authenticate': 'Bearer',
        },
      );
}

/** The token of an `Authorization: Bearer <token>` header; null when the header is absent or of another scheme. */
export function bearerToken(req: Request): string | null {
  const header = req.headers.get('authorization');
  if (header === null) return null;
  const m = /^Bearer(?:\s+(.*))?$/i.exec(header.trim());
  return m ? (m[1] ?? '').trim() : null;
}
