// The HTTP metrics counted in plain numbers and added to prom-client at collection
// (src/http-metrics.ts, src/histogram-fold.ts): a scrape shows what prom-client itself would show
// had every answer been observed at once, and no answer calls prom-client.
import { Counter, Histogram, Registry } from 'prom-client';
import { countRequest, HTTP_DURATION_BUCKETS, httpMetrics, routeMetricsOf } from '../src/http-metrics';

/** prom-client's own metrics of the same names, fed one call per answer (the gateway until 2026-12-01). */
function reference() {
  const registry = new Registry();
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'mediagen_http_requests_total', help: 'HTTP requests answered, by method, route pattern and status code', labelNames, registers: [registry] });
  const duration = new Histogram({
    name: 'mediagen_http_request_duration_seconds',
    help: 'HTTP request latency from arrival to the last byte of the response, by method, route pattern and status',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  return { registry, requests, duration };
}

/** The exposition text with each _sum's value rounded (adding per scrape rounds differently in the last digits). */
const roundedSums = (text: string) => text.replace(/^(\S+_sum\{[^}]*\}) (\S+)$/gm, (_, name: string, v: string) => `${name} ${Number(v).toPrecision(12)}`);

describe('HTTP metrics counted in plain numbers', () => {
  it('scrape as prom-client observing each answer would: counts, buckets, boundaries and sums', async () => {
    const ours = new Registry();
    const m = httpMetrics(ours);
    const ref = reference();
    // Values on, just under and just over every boundary, beyond the largest, and routes and statuses mixed.
    const values = [0, 0.0001, ...HTTP_DURATION_BUCKETS.flatMap((b) => [b, b * 0.999, b * 1.001]), 45, 0.003];
    const series = [
      ['GET', '/api/image/tasks/:taskId', '200'],
      ['GET', '/api/video/tasks/:taskId', '200'],
      ['POST', '/api/image/generate', '429'],
    ] as const;
    // Made before any answer, as the cached-poll lane makes its own: listed when first answered.
    routeMetricsOf(m, 'GET', '/api/video/tasks/:taskId', '200');
    const answer = (i: number, v: number) => {
      const [method, route, status] = series[i % series.length];
      countRequest(routeMetricsOf(m, method, route, status), v);
      ref.requests.labels({ method, route, status }).inc();
      ref.duration.labels({ method, route, status }).observe(v);
    };
    values.forEach((v, i) => answer(i, v));
    expect(roundedSums(await ours.metrics())).toBe(roundedSums(await ref.registry.metrics()));
    // Further answers after a scrape are added to what it showed, not counted twice.
    values.forEach((v, i) => answer(i + 1, v * 2));
    expect(roundedSums(await ours.metrics())).toBe(roundedSums(await ref.registry.metrics()));
    expect(roundedSums(await ours.metrics())).toBe(roundedSums(await ref.registry.metrics())); // a scrape with nothing new
  });

  it('touches no prom-client metric per answer, only when collected', async () => {
    const registry = new Registry();
    const m = httpMetrics(registry);
    const inc = jest.spyOn(m.requests, 'inc');
    const observe = jest.spyOn(m.duration, 'observe');
    const r = routeMetricsOf(m, 'GET', '/api/image/tasks/:taskId', '200');
    for (let i = 0; i < 1000; i++) countRequest(r, 0.0002);
    expect(inc).not.toHaveBeenCalled();
    expect(observe).not.toHaveBeenCalled();
    const json = await registry.getMetricsAsJSON();
    const count = json.find((x) => x.name === 'mediagen_http_requests_total')!.values[0].value;
    expect(count).toBe(1000);
    expect(inc).toHaveBeenCalledTimes(1); // the whole scrape's answers in one call
  });
});
