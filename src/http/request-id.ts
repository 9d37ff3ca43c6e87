// The request id: `X-Request-Id` on every answer, the `reqId` of the request's log lines, and `details.requestId` of a
// 500. A caller's (or a proxy's) own X-Request-Id is kept when it is a short token of safe characters, so that one id
// follows a request across services; anything else (too long, spaces, quotes, control characters) is replaced by one
// of ours, which is never logged nor echoed.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';
const SAFE = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Fastify's `genReqId`. Ours are `<12 random characters>-<counter>`: unique across processes and restarts (the
 * random part is drawn once per app), and cheaper than a random id per request.
 */
export function requestIdGenerator(): (req: IncomingMessage) => string {
  const prefix = randomBytes(9).toString('base64url');
  let counter = 0;
  return (req) => {
    const given = req.headers[REQUEST_ID_HEADER];
    if (typeof given === 'string' && SAFE.test(given)) return given;
    counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
    return `${prefix}-${counter.toString(36)}`;
  };
}

/** Puts the request id on every answer, errors and 404s included (a header set this early survives the error handler). */
export function requestIdHeader(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}
