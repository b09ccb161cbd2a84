import { Counter, Gauge, type Registry } from 'prom-client';

/** What the webhook dispatcher counts, shown in /metrics by whichever registry registers it. */
export interface WebhookMetrics {
  delivered(tenant: string, webhook: string): void;
  failed(tenant: string, webhook: string): void;
  /** The feed's highest seq minus the webhook's position, as last seen. */
  lag(tenant: string, webhook: string, events: number): void;
  /** A webhook no longer dispatched here (deleted or disabled) leaves the lag gauge. */
  forget(tenant: string, webhook: string): void;
  register(registry: Registry): void;
}

export function webhookMetrics(): WebhookMetrics {
  const key = (tenant: string, webhook: string) => JSON.stringify([tenant, webhook]);
  const counts = { delivered: new Map<string, number>(), failed: new Map<string, number>() };
  const lags = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  const labels = (k: string) => {
    const [tenant, webhook] = JSON.parse(k) as [string, string];
    return { tenant, webhook };
  };
  return {
    delivered: (t, w) => bump(counts.delivered, key(t, w)),
    failed: (t, w) => bump(counts.failed, key(t, w)),
    lag: (t, w, n) => lags.set(key(t, w), n),
    forget: (t, w) => lags.delete(key(t, w)),
    register(registry) {
      for (const [name, help, m] of [
        ['mrs_webhook_deliveries_total', 'Webhook deliveries acknowledged with a 2xx, by tenant and webhook.', counts.delivered],
        ['mrs_webhook_failures_total', 'Webhook delivery attempts that failed, by tenant and webhook.', counts.failed],
      ] as const)
        new Counter({
          name,
          help,
          labelNames: ['tenant', 'webhook'] as const,
          registers: [registry],
          collect() {
            this.reset();
            for (const [k, n] of m) this.inc(labels(k), n);
          },
        });
      new Gauge({
        name: 'mrs_webhook_lag_events',
        help: "Feed lag per active webhook this process dispatches: the feed's highest seq minus the seq delivered up to.",
        labelNames: ['tenant', 'webhook'] as const,
        registers: [registry],
        collect() {
          this.reset();
          for (const [k, n] of lags) this.set(labels(k), n);
        },
      });
    },
  };
}
