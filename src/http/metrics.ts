// Prometheus metrics: one registry per app, so several apps (tests) never share counters.
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function registerMetrics(app: FastifyInstance): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'motu_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'motu_http_request_duration_seconds',
    help: 'HTTP request duration by method and route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  // A callback hook, not an async one: no promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    done();
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
  return registry;
}

/**
 * Gauges read when /metrics is scraped, all from one `read` (a database query, say) per scrape: the registry collects
 * every metric at once, so the gauges share the read in flight. A read that fails leaves them out of that scrape rather
 * than failing it: the other metrics still answer while the database does not.
 */
export function gaugesOnScrape<K extends string>(
  registry: Registry,
  gauges: Record<K, { name: string; help: string }>,
  read: () => Promise<Record<K, number>>,
): void {
  let inFlight: Promise<Record<K, number>> | undefined;
  const once = () => (inFlight ??= read().finally(() => { inFlight = undefined; }));
  for (const key of Object.keys(gauges) as K[]) {
    new Gauge({
      ...gauges[key],
      registers: [registry],
      async collect() {
        try {
          this.set((await once())[key]);
        } catch {
          this.reset();
        }
      },
    });
  }
}
