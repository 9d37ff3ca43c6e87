// A POST without a body is an empty object (capture, cancel and refund take an optional one). So is `[]`: PHP's
// `json_encode([])` of an empty options array, which the PHP client sends for a full refund. Done before validation
// and before the Idempotency-Key's request hash, so no body, `{}` and `[]` are one and the same request.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

/** A callback hook, not an async one: no promise per request. */
export function emptyBody(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const body = request.body;
  if (body === undefined || body === null || (Array.isArray(body) && body.length === 0)) request.body = {};
  done();
}
