import { errorRefs, headers } from './responses.ts';

type Json = Record<string, unknown>;

const NO_AUTH: Json[] = [];

/** `POST {base}/authenticate`: an API key for a bearer token. */
export function authenticatePath(): Json {
  return {
    post: {
      tags: ['authentication'],
      operationId: 'authenticate',
      summary: 'Trade an API key for a bearer token',
      description: 'Limited per client address; every call counts. A wrong tenant, user or key gets the same 401.',
      security: NO_AUTH,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: {
                api_key: { type: 'string', description: '`mrs_<key-id>_<secret>`', minLength: 1 },
                client_db: {
                  type: 'string',
                  pattern: '^[a-z0-9_]{1,63}\\.[a-z0-9_]{1,63}$',
                  description: 'The tenant: `<client>.<schema>`.',
                },
                username: { type: 'string', minLength: 1 },
              },
              required: ['api_key', 'client_db', 'username'],
            },
          },
        },
      },
      responses: { '200': tokenAnswer, ...errorRefs([400, 401, 405, 413, 415, 429, 503]) },
    },
  };
}

const tokenAnswer: Json = {
  description: 'A bearer token: send it as `Authorization: Bearer <access_token>`; and a refresh token for the next one.',
  headers: headers([], true),
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: {
          access_token: { type: 'string' },
          token_type: { type: 'string', const: 'Bearer' },
          expires_in: { type: 'integer', description: 'Seconds the token lives (it lives at least this long).' },
          refresh_token: {
            type: 'string',
            description: 'Opaque; trade it once at `POST /tokens/refresh` for a new pair, within REFRESH_TOKEN_TTL_S (30 days).',
          },
        },
        required: ['access_token', 'token_type', 'expires_in', 'refresh_token'],
      },
    },
  },
};

/** `POST {base}/tokens/refresh`: a refresh token for a new access token and a new refresh token. */
export function refreshPath(): Json {
  return {
    post: {
      tags: ['authentication'],
      operationId: 'refreshToken',
      summary: 'Trade a refresh token for a new access token and refresh token',
      description:
        'Each refresh token works once: a second use ends every refresh token rotated from the same `/authenticate`. Unknown, used, expired, or of a revoked key or disabled user: 404. Limited per client address, with `/authenticate`.',
      security: NO_AUTH,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { type: 'object', properties: { refresh_token: { type: 'string', minLength: 1 } }, required: ['refresh_token'] },
          },
        },
      },
      responses: { '200': tokenAnswer, ...errorRefs([400, 404, 405, 413, 415, 429, 503]) },
    },
  };
}

const plain = (operationId: string, summary: string, type: string, schema: Json = { type: 'string' }): Json => ({
  get: {
    tags: ['service'],
    operationId,
    summary,
    security: NO_AUTH,
    responses: { '200': { description: summary, headers: headers([], false), content: { [type]: { schema } } } },
  },
});

const status = (value: string): Json => ({ type: 'object', properties: { status: { const: value } }, required: ['status'] });

/** The document, the docs page, and the operational endpoints outside the base path. */
export function servicePaths(basePath: string): Record<string, Json> {
  return {
    [`${basePath}/openapi.json`]: plain('openapi', 'This OpenAPI document', 'application/json', { type: 'object' }),
    [`${basePath}/docs`]: plain('docs', 'The interactive API reference page', 'text/html'),
    '/healthz': plain('healthz', 'The process is alive', 'application/json', status('ok')),
    '/readyz': {
      get: {
        ...(plain('readyz', 'The database answers', 'application/json', status('ready')).get as Json),
        description: '503 with a problem body when the database does not answer.',
      },
    },
    '/metrics': plain('metrics', 'Prometheus metrics (text format); keep it on a private address', 'text/plain'),
  };
}
