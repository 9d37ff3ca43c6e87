// One error handler renders every failure as {code, message, details?, fields?}.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, validationError, type FieldError } from '../shared/errors.js';

interface AjvError {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** `/order/items/0/quantity` → `order.items[0].quantity`. */
function fieldPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').filter(Boolean);
  if (extra) parts.push(extra);
  let out = '';
  for (const part of parts) {
    if (/^\d+$/.test(part)) out += `[${part}]`;
    else out += out ? `.${part}` : part;
  }
  return out;
}

function describe(error: AjvError): FieldError {
  const params = error.params ?? {};
  const base = error.instancePath ?? '';
  switch (error.keyword) {
    case 'required':
      return { field: fieldPath(base, String(params.missingProperty)), message: 'is required' };
    case 'additionalProperties':
      return { field: fieldPath(base, String(params.additionalProperty)), message: 'is not a known field' };
    case 'type':
      return { field: fieldPath(base) || 'body', message: `must be ${String(params.type)}` };
    case 'enum':
      return {
        field: fieldPath(base),
        message: `must be one of ${(params.allowedValues as unknown[] | undefined)?.map(String).join(', ')}`,
      };
    default:
      return { field: fieldPath(base) || 'body', message: error.message ?? 'is invalid' };
  }
}

export function schemaValidationError(errors: AjvError[], part: string): AppError {
  const seen = new Set<string>();
  const fields: FieldError[] = [];
  for (const e of errors) {
    // anyOf/oneOf wrappers repeat what their branches said.
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'if') continue;
    const f = describe(e);
    if (part === 'querystring' || part === 'params') f.field = f.field || part;
    if (seen.has(f.field)) continue;
    seen.add(f.field);
    fields.push(f);
  }
  return validationError(fields.length ? fields : [{ field: part, message: 'is invalid' }]);
}

function tooLarge(): AppError {
  return new AppError('VALIDATION_ERROR', 'The body is larger than this service accepts', { field: 'body' }, [
    { field: 'body', message: 'is too large' },
  ]);
}

function notJson(): AppError {
  return new AppError('VALIDATION_ERROR', 'Send the body as JSON with "Content-Type: application/json"', { field: 'content-type' }, [
    { field: 'content-type', message: 'must be application/json' },
  ]);
}

function toAppError(error: FastifyError & { validation?: AjvError[]; validationContext?: string }): AppError | undefined {
  if (error instanceof AppError) return error;
  if (error.validation) return schemaValidationError(error.validation, error.validationContext ?? 'body');
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('VALIDATION_ERROR', 'The body is not valid JSON', { field: 'body' }, [
        { field: 'body', message: 'is not valid JSON' },
      ]);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('VALIDATION_ERROR', 'The body is empty; send a JSON object', { field: 'body' }, [
        { field: 'body', message: 'is required' },
      ]);
    // An oversize body or a body that is not JSON is a 400 VALIDATION_ERROR like any other bad input: one error shape.
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return tooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return notJson();
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('VALIDATION_ERROR', 'The Content-Length header does not match the body', { field: 'content-length' }, [
        { field: 'content-length', message: 'does not match the body' },
      ]);
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return new AppError('VALIDATION_ERROR', 'The URL is malformed', { field: 'url' }, [{ field: 'url', message: 'is malformed' }]);
    default:
      break;
  }
  if (error instanceof SyntaxError) {
    return new AppError('VALIDATION_ERROR', 'The body is not valid JSON', { field: 'body' }, [{ field: 'body', message: 'is not valid JSON' }]);
  }
  const status = error.statusCode;
  if (status === 413) return tooLarge();
  if (status === 415) return notJson();
  if (status === 431) return new AppError('VALIDATION_ERROR', 'Request headers are too large', { field: 'headers' });
  if (status !== undefined && status >= 400 && status < 500) {
    return new AppError('VALIDATION_ERROR', 'The request is malformed', { field: 'request' }, [{ field: 'request', message: 'is malformed' }]);
  }
  return undefined;
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const known = toAppError(error);
    if (known) {
      if (known.status >= 500) request.log.error({ err: error }, known.message);
      // An answer that is not final (a rate limit, an operation under way) says when to retry, in the body and as
      // Retry-After; the idempotency layer does not keep it as the key's answer (src/http/idempotency.ts).
      const retryAfter = (known.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
      if (typeof retryAfter === 'number' && retryAfter > 0 && !reply.hasHeader('retry-after')) reply.header('retry-after', String(retryAfter));
      return reply.code(known.status).send(known.toBody());
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({
      code: 'INTERNAL_ERROR',
      message: 'Something went wrong on our side; the request id helps us find it',
      details: { requestId: request.id },
    });
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    return reply.code(404).send({
      code: 'ROUTE_NOT_FOUND',
      message: `No route ${request.method} ${request.url.split('?')[0]}`,
      details: { method: request.method, path: request.url.split('?')[0] },
    });
  });
}

/**
 * Fastify's `frameworkErrors`: what its router refuses before any route or hook runs (a path that does not decode,
 * `/payments/%FF`; a failed async constraint) is answered in the same shape as every other error, not Fastify's own.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const known = toAppError(error) ?? new AppError('VALIDATION_ERROR', 'The request is malformed', { field: 'request' });
  // No hook ran: the request id header (src/http/request-id.ts) is set here.
  void reply.code(known.status).header('x-request-id', request.id).send(known.toBody());
}

/**
 * Errors Node's HTTP parser raises before Fastify sees a request (headers too large, malformed request line,
 * client timeout): answered with the same {code, message} shape as every other error, then the socket closes.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: import('node:net').Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'VALIDATION_ERROR', 'Request headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'REQUEST_TIMEOUT', 'The request took too long to arrive']
        : [400, 'VALIDATION_ERROR', 'The request is malformed'];
  const body = JSON.stringify({ code, message, details: { field: status === 431 ? 'headers' : 'request' } });
  const reason = status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request';
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
