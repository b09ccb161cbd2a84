import { expect, it } from 'vitest';
import { make, makeWorkOrder } from '../support/fixtures.ts';
import { BASE, describeEachDatabase, M } from '../support/harness.ts';
import { ASSET_RESOURCES } from './asset-resources.ts';

/** SPEC 14: record reads carry Last-Modified from `updated`; If-Modified-Since gives 304, in whole seconds. */
const httpDate = (ms: number) => new Date(ms).toUTCString();

describeEachDatabase(
  'Last-Modified and If-Modified-Since',
  (h) => {
    it('a read carries Last-Modified: its updated as an HTTP date; a list does not', async () => {
      const wo = await makeWorkOrder(h());
      const r = await h().get(`${M}/work_orders/${wo.id}`);
      expect(r.headers.get('last-modified')).toBe(httpDate(Date.parse(wo.updated)));
      expect((await h().request('HEAD', `${M}/work_orders/${wo.id}`)).headers.get('last-modified')).toBe(r.headers.get('last-modified'));
      expect((await h().get(`${M}/work_orders`)).headers.get('last-modified')).toBeNull();
    });

    it('If-Modified-Since at or after updated (to the second) is 304 with no body, ETag and Last-Modified; before it, 200', async () => {
      const asset = await make(h(), `${BASE}/assets`, { profile_id: 1, tag: 'x' });
      const path = `${BASE}/assets/${asset.id}`;
      const updated = Date.parse(asset.updated);
      for (const since of [updated, Math.floor(updated / 1000) * 1000, updated + 86_400_000]) {
        const r = await h().get(path, { 'if-modified-since': httpDate(since) });
        expect(r.status, httpDate(since)).toBe(304);
        expect(r.text).toBe('');
        expect(r.headers.get('etag')).toBe('"1"');
        expect(r.headers.get('last-modified')).toBe(httpDate(updated));
      }
      const before = await h().get(path, { 'if-modified-since': httpDate(Math.floor(updated / 1000) * 1000 - 1000) });
      expect(before.status).toBe(200);
      expect(before.body).toEqual(asset);
      expect((await h().get(`${BASE}/bulk/assets/${asset.id}`, { 'if-modified-since': httpDate(updated) })).status).toBe(304);
    });

    it('a change after the date makes it 200 again; an unreadable date is ignored; If-None-Match wins over it', async () => {
      const wo = await makeWorkOrder(h());
      const path = `${M}/work_orders/${wo.id}`;
      const since = httpDate(Date.parse(wo.updated));
      await new Promise((r) => setTimeout(r, 1100));
      const changed = await h().patch(path, { priority: 2 });
      expect((await h().get(path, { 'if-modified-since': since })).status).toBe(200);
      const now = httpDate(Date.parse(changed.body.updated));
      expect((await h().get(path, { 'if-modified-since': now })).status).toBe(304);
      expect((await h().get(path, { 'if-modified-since': 'yesterday' })).status).toBe(200);
      expect((await h().get(path, { 'if-modified-since': now, 'if-none-match': '"999"' })).status).toBe(200);
    });
  },
  { resources: ASSET_RESOURCES },
);
