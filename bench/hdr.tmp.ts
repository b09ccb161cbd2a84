import { serve } from '@hono/node-server';
import { Hono } from 'hono';
const body = {"id":12345,"created":"2024-11-18","updated":"2026-11-25T03:12:33.185Z","deleted":false,"department_id":25,"work_order_type_id":1,"work_order_type_group_id":1,"priority":4,"status":"open","description":"Seeded work order 12345","service_request_id":null};
const app = new Hono();
let n = 0;
app.get('/h1', (c) => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json', 'x-request-id': crypto.randomUUID() } }));
app.get('/h6', (c) => { n++; return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json', 'x-request-id': crypto.randomUUID(),
  'x-ratelimit-limit': '1000000000', 'x-ratelimit-remaining': String(1e9 - n), 'x-ratelimit-reset': '3600', 'ratelimit-policy': '"default";q=1000000000;w=3600', ratelimit: `"default";r=${1e9 - n};t=3600` } }); });
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { fromFlexible } from '../server/rate-limit/flexible.ts';
import { limitCaller } from '../engine/rate-limit.ts';
const rl = new RateLimiterMemory({ points: 1e9, duration: 3600, keyPrefix: 'key' });
const lim = fromFlexible(rl, 1e9, 3600, async () => {});
app.get('/rl', async (c) => { const caller = await limitCaller(lim, 'demo/k', { keyId: 'k' } as any); return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json', 'x-request-id': crypto.randomUUID(), ...caller.headers } }); });
app.get('/h6s', (c) => { n++; const host = { 'x-request-id': crypto.randomUUID() };
  const rl = { 'x-ratelimit-limit': '1000000000', 'x-ratelimit-remaining': String(1e9 - n), 'x-ratelimit-reset': '3600', 'ratelimit-policy': '"default";q=1000000000;w=3600', ratelimit: `"default";r=${1e9 - n};t=3600` };
  const headers = { ...host, ...rl };
  return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json', ...headers } }); });
serve({ fetch: app.fetch, port: Number(process.argv[2]), hostname: '127.0.0.1' }, () => console.log('ready'));
