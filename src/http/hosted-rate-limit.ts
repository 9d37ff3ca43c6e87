// Hosted pages anyone holding their link may ask for (the invoice page, its PDF, a receipt's PDF): each route answers
// one client address MOTU_HOSTED_PAGES_PER_MINUTE times a minute, then 429 RATE_LIMITED with Retry-After.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../shared/errors.js';

/** In the calling plugin (encapsulated): rate limits only on the routes that ask with `hostedRateLimit`. */
export async function registerHostedRateLimit(app: FastifyInstance): Promise<void> {
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) => {
      const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
      return new AppError('RATE_LIMITED', `Too many requests for this page from this address; retry in ${seconds} s`, {
        retryAfterSeconds: seconds,
        limit: context.max,
      }) as unknown as object;
    },
  });
}

/** A route's `config`: at most `perMinute` requests a minute from one client address. */
export function hostedRateLimit(perMinute: number) {
  return { rateLimit: { max: perMinute, timeWindow: 60_000, keyGenerator: (request: { ip: string }) => `hosted:${request.ip}` } };
}
