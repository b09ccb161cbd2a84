import { createHash } from 'node:crypto';
import { decodeJwt } from 'jose';
import { expect, it } from 'vitest';
import { disableUser, enableUser } from '../../server/auth/accounts.ts';
import { revokeKey } from '../../server/auth/api-keys.ts';
import { AUTHENTICATE, ensureUser, makeKey, tenantOf } from '../support/auth.ts';
import { expectProblem } from '../support/fixtures.ts';
import { BASE, describeEachDatabase, M, startHarness } from '../support/harness.ts';

const REFRESH = `${BASE}/tokens/refresh`;
const TOKEN = /^mrsr\.demo\.main\.[A-Za-z0-9]{43}$/;
const DAY_MS = 86_400_000;
const clock = { t: Date.now() };

describeEachDatabase(
  'refresh tokens',
  (h) => {
    /** A fresh user with a key, authenticated: the answer's body and the key's id. */
    async function login(username: string) {
      await ensureUser(h().service, 'demo.main', username, ['reader']);
      const { key, keyId } = await makeKey(h().service, 'demo.main', username);
      const r = await h().request('POST', AUTHENTICATE, { body: { api_key: key, client_db: 'demo.main', username }, token: null });
      expect(r.status, r.text).toBe(200);
      return { ...(r.body as { access_token: string; refresh_token: string; expires_in: number }), keyId };
    }
    const refresh = (refresh_token: unknown) => h().request('POST', REFRESH, { body: { refresh_token }, token: null });

    it('/authenticate answers a refresh token of 256 random bits, stored only as its SHA-256', async () => {
      const { refresh_token } = await login('rita');
      expect(refresh_token).toMatch(TOKEN);
      const t = await tenantOf(h().service, 'demo.main');
      const rows = await t.db.selectFrom('mrs_refresh_tokens').selectAll().execute();
      expect(JSON.stringify(rows)).not.toContain(refresh_token.split('.')[3]);
      expect(rows.map((r) => r.hash)).toContain(createHash('sha256').update(refresh_token).digest('hex'));
    });

    it('a refresh answers the same body with a new access token and a new refresh token; each works once', async () => {
      const first = await login('rosa');
      const r = await refresh(first.refresh_token);
      expect(r.status, r.text).toBe(200);
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(r.body).toEqual({
        access_token: expect.any(String),
        token_type: 'Bearer',
        expires_in: 3600,
        refresh_token: expect.stringMatching(TOKEN),
      });
      expect(r.body.refresh_token).not.toBe(first.refresh_token);
      expect(decodeJwt(r.body.access_token)).toMatchObject({ sub: 'rosa', client_db: 'demo.main', key_id: first.keyId });
      expect((await h().as(r.body.access_token).get(`${M}/work_orders`)).status).toBe(200);
      // The new one rotates again; the first, used, is 404.
      const again = await refresh(r.body.refresh_token);
      expect(again.status, again.text).toBe(200);
      expectProblem(await refresh(first.refresh_token), 404);
    });

    it('a second use of a used token ends every refresh token of its family, not of another', async () => {
      const first = await login('remy');
      const other = await login('remy');
      const second = (await refresh(first.refresh_token)).body.refresh_token as string;
      expectProblem(await refresh(first.refresh_token), 404); // replayed: the family ends
      expectProblem(await refresh(second), 404);
      expect((await refresh(other.refresh_token)).status).toBe(200);
    });

    it('two uses at once: one answers 200, the other 404, and the family ends', async () => {
      const { refresh_token } = await login('ruth');
      const answers = await Promise.all([refresh(refresh_token), refresh(refresh_token)]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 404]);
      const winner = answers.find((a) => a.status === 200)!;
      expectProblem(await refresh(winner.body.refresh_token), 404);
    });

    it('lives REFRESH_TOKEN_TTL_S (30 days) from its issue, each rotation from its own', async () => {
      const { refresh_token } = await login('rhea');
      clock.t += 29 * DAY_MS;
      const r = await refresh(refresh_token);
      expect(r.status, r.text).toBe(200);
      clock.t += 29 * DAY_MS;
      const r2 = await refresh(r.body.refresh_token);
      expect(r2.status, r2.text).toBe(200);
      clock.t += 30 * DAY_MS + 1000;
      expectProblem(await refresh(r2.body.refresh_token), 404);
    });

    it('ends with its key or its user: revoked key or disabled user is 404, and stays so once enabled again', async () => {
      const t = await tenantOf(h().service, 'demo.main');
      const revoked = await login('rob');
      await revokeKey(t, revoked.keyId);
      expectProblem(await refresh(revoked.refresh_token), 404);
      const disabled = await login('rick');
      await disableUser(t, 'rick');
      expectProblem(await refresh(disabled.refresh_token), 404);
      await enableUser(t, 'rick');
      expectProblem(await refresh(disabled.refresh_token), 404);
    });

    it('unknown tokens are 404; a body without refresh_token is 400; only POST is served', async () => {
      const { refresh_token } = await login('ray');
      const forged = refresh_token.slice(0, -4) + (refresh_token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
      for (const unknown of [forged, refresh_token.replace('demo.main', 'nobody.main'), 'mrsr.demo.main.x', 'hunter2'])
        expectProblem(await refresh(unknown), 404);
      expectProblem(await refresh(7), 400, ['refresh_token']);
      expectProblem(await h().request('POST', REFRESH, { body: [refresh_token], token: null }), 400, ['refresh_token']);
      expectProblem(
        await h().request('POST', REFRESH, { raw: refresh_token, token: null, headers: { 'content-type': 'text/plain' } }),
        415,
      );
      const get = await h().request('GET', REFRESH, { token: null });
      expectProblem(get, 405);
      expect(get.headers.get('allow')).toBe('POST');
      // None of these used the real token.
      expect((await refresh(refresh_token)).status).toBe(200);
    });

    it('expires_in never promises more than the access token lives: its exp is at least that long after the request', async () => {
      const sent = Date.now();
      const first = await login('rory');
      const sentAgain = Date.now();
      const again = (await refresh(first.refresh_token)).body;
      for (const [{ access_token, expires_in }, at] of [
        [first, sent],
        [again, sentAgain],
      ] as const)
        expect(decodeJwt(access_token).exp! * 1000 - at).toBeGreaterThanOrEqual(expires_in * 1000);
    });

    it('is declared in the OpenAPI document', async () => {
      const doc = (await h().get(`${BASE}/openapi.json`)).body;
      const post = doc.paths[`${BASE}/tokens/refresh`].post;
      expect(post.requestBody.content['application/json'].schema.required).toEqual(['refresh_token']);
      expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '429']));
      expect(doc.paths[`${BASE}/authenticate`].post.responses['200'].content['application/json'].schema.required).toContain(
        'refresh_token',
      );
    });

    it('is limited per client address with /authenticate', async () => {
      const started = await startHarness(h().db, { env: { AUTH_RATE_LIMIT_MAX: '3' } });
      try {
        // The harness logged in once already: two calls left.
        const answers = [];
        for (let i = 0; i < 3; i++)
          answers.push(await started.harness.request('POST', REFRESH, { body: { refresh_token: 'x' }, token: null }));
        expect(answers.map((a) => a.status)).toEqual([404, 404, 429]);
        expect(answers[2]!.headers.get('retry-after')).toBe(answers[2]!.headers.get('x-ratelimit-reset'));
      } finally {
        await started.stop();
      }
    });
  },
  { now: () => clock.t },
);
