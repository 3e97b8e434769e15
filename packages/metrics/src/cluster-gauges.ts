// Gauges read from Redis when Prometheus scrapes (not kept up to date in between): queue depth,
// renders in flight per channel and breaker state. They describe the whole deployment, so only the
// gateway exposes them; every gateway reports the same values (aggregate with max(), not sum()).
import { Gauge, Registry } from 'prom-client';

export interface ClusterSnapshot {
  /** queue name -> state (waiting, active, delayed) -> jobs */
  queues: Record<string, Record<string, number>>;
  /** channel id -> renders holding a slot */
  rendersInFlight: Record<string, number>;
  /** channel id -> closed | half-open | open */
  breakerStates: Record<string, string>;
}

const STATE_VALUE: Record<string, number> = { closed: 0, 'half-open': 1, open: 2 };

export function clusterGauges(registry: Registry, read: () => Promise<ClusterSnapshot>, onError: (err: Error) => void): void {
  // One Redis read per scrape serves all three gauges: the first collect() starts it, the others
  // reuse it.
  let pending: Promise<ClusterSnapshot | null> | null = null;
  const snapshot = () => {
    if (!pending) {
      pending = read().catch((err: Error) => {
        onError(err);
        return null;
      });
      void pending.finally(() => setTimeout(() => (pending = null), 0));
    }
    return pending;
  };
  new Gauge({
    name: 'mediagen_queue_jobs',
    help: 'Jobs per queue and state (waiting, active, delayed), read from Redis at scrape time',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const s = await snapshot();
      for (const [queue, states] of Object.entries(s?.queues ?? {}))
        for (const [state, n] of Object.entries(states)) this.set({ queue, state }, n);
    },
  });
  new Gauge({
    name: 'mediagen_renders_in_flight',
    help: 'Renders running upstream (holding a channel slot), per channel, at scrape time',
    labelNames: ['channel'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const s = await snapshot();
      for (const [channel, n] of Object.entries(s?.rendersInFlight ?? {})) this.set({ channel }, n);
    },
  });
  new Gauge({
    name: 'mediagen_channel_state',
    help: 'Channel circuit breaker state at scrape time: 0 closed, 1 half-open, 2 open',
    labelNames: ['channel'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const s = await snapshot();
      for (const [channel, state] of Object.entries(s?.breakerStates ?? {})) this.set({ channel }, STATE_VALUE[state] ?? 0);
    },
  });
}
