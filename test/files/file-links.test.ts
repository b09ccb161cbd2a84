import { expect, it } from 'vitest';
import { disableUser } from '../../server/auth/accounts.ts';
import { revokeKey } from '../../server/auth/api-keys.ts';
import { expectProblem, makeWorkOrder } from '../support/fixtures.ts';
import { form, upload } from '../support/files.ts';
import { describeEachDatabase, M } from '../support/harness.ts';

const clock = { t: Date.now() };

describeEachDatabase(
  "files' signed content_url",
  (h) => {
    /** A request with no token at all, as an <img src> makes it. */
    const open = async (url: string, method = 'GET') => {
      const res = await h().service.app.request(url, { method });
      return { status: res.status, text: await res.text(), headers: res.headers };
    };

    it('metadata carry a link that opens the content without a token, for that file and GET only', async () => {
      const { token } = await h().login({ username: 'linker' });
      const wo = await makeWorkOrder(h());
      const r = await upload(h().as(token), `${M}/work_orders/${wo.id}`, form('pump bytes', 'pump.txt', {}, 'text/plain'));
      expect(r.status, r.text).toBe(201);
      const url: string = r.body.content_url;
      expect(url).toMatch(new RegExp(`^${M}/work_orders/${wo.id}/attached_files/${r.body.id}/content\\?\\$expires=\\d+&\\$signature=`));
      const got = await open(url);
      expect(got.status, got.text).toBe(200);
      expect(got.text).toBe('pump bytes');
      expect((await h().as(token).get(`${M}/work_orders/${wo.id}/attached_files/${r.body.id}`)).body.content_url).toMatch(/\$signature=/);
      const listed = (await h().get(`${M}/work_orders/${wo.id}/attached_files`)).body;
      expect(listed[0].content_url).toMatch(/\$signature=/);
      // The feed's record carries none: a link is made per request, for its user.
      const feed = (await h().get(`/v4_server/external/v1/events?collection=attached_files&$limit=1000`)).body;
      expect(feed.at(-1).record.content_url).toBeUndefined();
      // Another file, another method, a changed signature or expiry: 403 (or 401 where no link applies).
      const other = await upload(h(), `${M}/work_orders/${wo.id}`, form('other', 'other.txt'));
      expectProblem(await open(url.replace(`/attached_files/${r.body.id}/`, `/attached_files/${other.body.id}/`)).then(asReply), 403);
      expectProblem(await open(url.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))).then(asReply), 403);
      expectProblem(await open(url.replace(/\$expires=(\d+)/, (_m, e) => `$expires=${Number(e) + 1000}`)).then(asReply), 403);
      expect((await open(url, 'DELETE')).status).toBe(401);
    });

    it('an expired link, or one whose key was revoked, is 403', async () => {
      const { token, keyId } = await h().login({ username: 'revoked' });
      const wo = await makeWorkOrder(h());
      const r = await upload(h().as(token), `${M}/work_orders/${wo.id}`, form('x', 'x.txt'));
      const url: string = r.body.content_url;
      expect((await open(url)).status).toBe(200);
      clock.t += 301_000;
      expectProblem(await open(url).then(asReply), 403);
      clock.t -= 301_000;
      await revokeKey((await h().service.tenants.get('demo.main'))!, keyId);
      clock.t += 5_000;
      expectProblem(await open(url).then(asReply), 403);
    });

    it('a link whose user was disabled is 403', async () => {
      const { token } = await h().login({ username: 'soon-disabled' });
      const wo = await makeWorkOrder(h());
      const r = await upload(h().as(token), `${M}/work_orders/${wo.id}`, form('x', 'x.txt'));
      expect((await open(r.body.content_url)).status).toBe(200);
      await disableUser((await h().service.tenants.get('demo.main'))!, 'soon-disabled');
      clock.t += 5_000;
      expectProblem(await open(r.body.content_url).then(asReply), 403);
    });
  },
  { now: () => clock.t },
);

const asReply = (r: { status: number; text: string; headers: Headers }) => ({ ...r, body: JSON.parse(r.text) });
