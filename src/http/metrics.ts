// Prometheus metrics: one registry per app, so several apps (tests) never share counters. Where `/metrics` answers is
// the configuration's MetricsExposure: on the app's port behind a bearer token (MOTU_METRICS_TOKEN), on a port of its
// own (MOTU_METRICS_PORT: on the loopback address unless the token guards it), or nowhere: it is never open to whoever
// reaches the API.
import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { MetricsExposure } from '../config.js';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { QueueDepth } from '../events/queue-depth.js';
import { requestIdGenerator, requestIdHeader } from './request-id.js';

/** The registry always counts (the gauges read it too); the route is added where `exposure` says. */
export function registerMetrics(app: FastifyInstance, exposure: MetricsExposure): Registry {
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
  const route = (server: FastifyInstance, token: string | undefined) =>
    server.get('/metrics', { schema: { hide: true }, onRequest: metricsGuard(token) }, async (_request, reply) => {
      reply.header('content-type', registry.contentType);
      return registry.metrics();
    });
  if (exposure.on === 'nowhere') return registry;
  if (exposure.on === 'app') {
    route(app, exposure.token);
    return registry;
  }
  // A server of its own: an address the load balancer does not expose, for the scraper alone.
  const own = Fastify({ logger: false, genReqId: requestIdGenerator(), trustProxy: false, return503OnClosing: true });
  requestIdHeader(own);
  route(own, exposure.token);
  own.setNotFoundHandler((_request, reply) => {
    void reply.code(404).send({ code: 'NOT_FOUND', message: 'Only /metrics answers on this port' });
  });
  app.addHook('onReady', async () => {
    await own.listen({ port: exposure.port, host: exposure.host });
  });
  app.addHook('onClose', async () => {
    await own.close();
  });
  return registry;
}

/** No token (the loopback port only): open. Otherwise 401 unless `Authorization: Bearer <token>`, compared in constant time. */
function metricsGuard(token: string | undefined) {
  if (token === undefined) return (_request: FastifyRequest, _reply: FastifyReply, done: () => void) => done();
  const expected = createHash('sha256').update(token).digest();
  return (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    const given = createHash('sha256').update(match?.[1] ?? '').digest();
    if (match && timingSafeEqual(given, expected)) return done();
    void reply
      .code(401)
      .header('www-authenticate', 'Bearer realm="metrics"')
      .send({ code: 'UNAUTHORIZED', message: 'GET /metrics needs Authorization: Bearer <MOTU_METRICS_TOKEN>' });
  };
}

/**
 * The gauges of one queue (`webhook_deliveries`, `mail_jobs`): pending, retrying, abandoned and the age of the oldest
 * pending, from one read per scrape.
 */
export function queueGauges(registry: Registry, queue: 'webhook' | 'mail', read: () => Promise<QueueDepth>): void {
  const [things, Things, abandonedState] = queue === 'webhook' ? ['webhook deliveries', 'Webhook deliveries', 'abandoned'] : ['mails', 'Mails', 'failed'];
  const prefix = queue === 'webhook' ? 'motu_webhook_deliveries' : 'motu_mail_jobs';
  gaugesOnScrape(registry, {
    pending: { name: `${prefix}_pending`, help: `${Things} waiting to be sent: due, waiting for a retry, or being sent` },
    retrying: { name: `${prefix}_retrying`, help: `Of the pending ${things}, those that failed at least once (a retry is scheduled or under way)` },
    abandoned: { name: `${prefix}_abandoned`, help: `${Things} given up after the last retry (status ${abandonedState}); only grows` },
    oldestPendingSeconds: { name: `${prefix}_oldest_pending_age_seconds`, help: `Seconds since the oldest pending one of the ${things} was queued (0: none pending)` },
  }, read);
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
