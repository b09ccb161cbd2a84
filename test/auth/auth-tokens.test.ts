import { describe, expect, it } from 'vitest';
import { revokeKey } from '../../server/auth/api-keys.ts';
import { expectProblem, makeWorkOrder, WORK_ORDER } from '../support/fixtures.ts';
import { describeEachDatabase, M, startHarness, type Reply } from '../support/harness.ts';
import { claimsOf, nowS, signed, tampered, unsigned } from '../support/tokens.ts';

const clock = { t: Date.now() };

/** A 401 of a /maintenance call: problem+json and the RFC 6750 challenge. */
function expectUnauthorized(r: Reply, tokenSent: boolean) {
  expectProblem(r, 401);
  expect(r.headers.get('www-authenticate')).toBe(tokenSent ? 'Bearer error="invalid_token"' : 'Bearer');
}

describeEachDatabase(
  'tokens on /maintenance',
  (h) => {
    it('no token is 401 with a bare Bearer challenge, whatever the path or method', async () => {
      for (const [method, path] of [
        ['GET', `${M}/work_orders`],
        ['POST', `${M}/work_orders`],
        ['GET', `${M}/work_orders/1`],
        ['DELETE', `${M}/no_such_collection/1`],
        ['PATCH', `${M}/work_orders`],
        ['GET', `${M}/a/b/c/d/e`],
        ['GET', M],
      ] as const) {
        const r = await h().request(method, path, { token: null, ...(method === 'POST' ? { body: WORK_ORDER } : {}) });
        expectUnauthorized(r, false);
      }
      expectUnauthorized(await h().get(`${M}/work_orders`, { authorization: 'Basic YWRtaW46YWRtaW4=' }), false);
    });

    it('a token from /authenticate is served', async () => {
      const { token } = await h().login({ username: 'tess' });
      expect((await h().as(token).get(`${M}/work_orders`)).status).toBe(200);
      expect((await h().as(token).post(`${M}/work_orders`, WORK_ORDER)).status).toBe(201);
      const claims = claimsOf(token);
      expect(claims).toMatchObject({ sub: 'tess', client_db: 'demo.main', key_id: expect.any(String) });
      expect((claims.exp as number) - (claims.iat as number)).toBe(3600);
    });

    it('garbage, empty, expired, tampered, alg:none, wrongly signed and other-algorithm tokens are 401 invalid_token', async () => {
      const s = h().service;
      const { token, keyId } = await h().login({ username: 'tina', roles: ['reader'] });
      const good = { sub: 'tina', client_db: 'demo.main', key_id: keyId };
      // The hand-made token is accepted when nothing is wrong with it: what fails below fails for its one fault.
      expect(
        (
          await h()
            .as(await signed(s, { ...good, iat: nowS(), exp: nowS() + 60 }))
            .get(`${M}/work_orders`)
        ).status,
      ).toBe(200);
      const bad: Record<string, string> = {
        garbage: 'not-a-jwt',
        empty: '',
        expired: await signed(s, { ...good, iat: nowS() - 7200, exp: nowS() - 3600 }),
        'no exp': await signed(s, { ...good, iat: nowS() }),
        'tampered sub': tampered(token, { sub: 'admin' }),
        'tampered client_db': tampered(token, { client_db: 'other.main' }),
        'tampered exp': tampered(await signed(s, { ...good, iat: nowS() - 7200, exp: nowS() - 3600 }), { exp: nowS() + 3600 }),
        'alg none': unsigned({ ...good, iat: nowS(), exp: nowS() + 60 }),
        'alg none, signature kept': `${unsigned({ ...good, iat: nowS(), exp: nowS() + 60 }).slice(0, -1)}.${token.split('.')[2]}`,
        'wrong secret': await signed(s, { ...good, iat: nowS(), exp: nowS() + 60 }, { secret: 'x'.repeat(43) }),
        HS512: await signed(s, { ...good, iat: nowS(), exp: nowS() + 60 }, { alg: 'HS512' }),
        'unknown key id': await signed(s, { ...good, key_id: 'NoSuchKey123', iat: nowS(), exp: nowS() + 60 }),
        "another user's key": await signed(s, { ...good, sub: 'admin', iat: nowS(), exp: nowS() + 60 }),
        'no such tenant': await signed(s, { ...good, client_db: 'nobody.home', iat: nowS(), exp: nowS() + 60 }),
        'no key_id': await signed(s, { sub: 'tina', client_db: 'demo.main', iat: nowS(), exp: nowS() + 60 }),
      };
      for (const [name, t] of Object.entries(bad)) {
        const r = await h().get(`${M}/work_orders`, { authorization: `Bearer ${t}` });
        expect(r.status, name).toBe(401);
        expectUnauthorized(r, true);
      }
      expectUnauthorized(await h().get(`${M}/work_orders`, { authorization: 'Bearer' }), true);
    });

    it('a 401 answers before 404 and 405', async () => {
      const t = await signed(h().service, { sub: 'admin', client_db: 'demo.main', key_id: 'x', exp: nowS() - 1, iat: nowS() - 10 });
      expectUnauthorized(await h().request('GET', `${M}/nothing_here`, { token: t }), true);
      expectUnauthorized(await h().request('PATCH', `${M}/work_orders`, { token: t }), true);
    });

    it('revoking a key ends its tokens within the key-state TTL (2 s), here and in another process', async () => {
      const { token, keyId } = await h().login({ username: 'rex' });
      const wo = await makeWorkOrder(h());
      expect((await h().as(token).get(`${M}/work_orders/${wo.id}`)).status).toBe(200);
      const cfg = h().service.config;
      const second = await startHarness(h().db, { reuse: { dataDir: cfg.dataDir, databaseUrl: cfg.databaseUrl }, now: () => clock.t });
      try {
        // Every process shares the signing secret: the other process serves this process's token.
        expect((await second.harness.as(token).get(`${M}/work_orders/${wo.id}`)).status).toBe(200);
        await revokeKey((await second.harness.service.tenants.get('demo.main'))!, keyId);
        clock.t += 5_000;
        for (const server of [h(), second.harness]) expectUnauthorized(await server.as(token).get(`${M}/work_orders/${wo.id}`), true);
        // The other keys of the tenant are untouched.
        expect((await h().get(`${M}/work_orders/${wo.id}`)).status).toBe(200);
      } finally {
        await second.stop(true);
      }
    });
  },
  { now: () => clock.t },
);

describe('the signing secret', () => {
  it('JWT_SECRET signs when set: a token made with it is accepted, one made with the stored secret is not', async () => {
    const secret = 's'.repeat(40);
    const started = await startHarness('sqlite', { env: { JWT_SECRET: secret } });
    try {
      const h = started.harness;
      const keyId = claimsOf(h.token!).key_id;
      const claims = { sub: 'admin', client_db: 'demo.main', key_id: keyId, iat: nowS(), exp: nowS() + 60 };
      expect((await h.as(await signed(h.service, claims, { secret })).get(`${M}/work_orders`)).status).toBe(200);
      const { signingSecret } = await import('../../server/auth/secret.ts');
      const stored = await signingSecret(undefined, h.service.tenants);
      expect(stored).not.toBe(secret);
      expect((await h.as(await signed(h.service, claims, { secret: stored })).get(`${M}/work_orders`)).status).toBe(401);
    } finally {
      await started.stop();
    }
  });
});
