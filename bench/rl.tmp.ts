import { RateLimiterMemory } from 'rate-limiter-flexible';
import { fromFlexible } from '../server/rate-limit/flexible.ts';
import { limitCaller } from '../engine/rate-limit.ts';
const rl = new RateLimiterMemory({ points: 1e9, duration: 3600, keyPrefix: 'key' });
const lim = fromFlexible(rl, 1e9, 3600, async () => {});
const caller: any = { tenant: {}, user: 'a', clientDb: 'x', keyId: 'k', can: () => true };
async function t(label: string, f: () => unknown, n = 300000) { for (let i = 0; i < 20000; i++) await f(); const s = performance.now(); for (let i = 0; i < n; i++) await f(); console.log(label.padEnd(14), ((performance.now() - s) * 1000 / n).toFixed(2), 'us'); }
for (let r = 0; r < 2; r++) {
  await t('consume', () => rl.consume('demo/k'));
  await t('hit', () => lim.hit('demo/k'));
  await t('limitCaller', () => limitCaller(lim, 'demo/k', caller));
}
