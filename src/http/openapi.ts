// The two OpenAPI 3.1 documents @fastify/swagger builds from the routes' own schemas: the merchant API (/api/v1,
// served at /api/v1/openapi.json and rendered at /docs) and the operator's admin API (/admin/v1, served behind the
// admin token at /admin/v1/openapi.json). The routes declare their schemas and summaries; what a client generator
// needs on top (operationIds, tags, the error responses, the Idempotency-Key header, named components, enums,
// examples and the webhooks section) is added here, to the document only: nothing in this file changes what a route
// validates or answers.
import { readFileSync } from 'node:fs';
import type { SwaggerOptions } from '@fastify/swagger';
import { ERROR_STATUS } from '../shared/errors.js';
import { READS as ACTED_BY_READS } from './acted-by.js';
import { ON_BEHALF_REFUSED, ROUTE_SCOPES } from './agency-scopes.js';
import { exampleId } from './openapi-examples.js';
import { ADMIN_TAGS, MERCHANT_TAGS, ON_BEHALF_ERRORS, OPERATIONS, type ErrorStatus } from './openapi-operations.js';
import { finishSchemas, webhooksSection } from './openapi-schemas.js';

type Json = Record<string, unknown>;
type Kind = 'merchant' | 'admin';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const MERCHANT_INTRO = [
  'Motu takes card payments for your shop and keeps your customers\' cards for later charges, then tells your server',
  'what happened through signed webhooks.',
  '',
  '**Authentication.** Send your secret key as `Authorization: Bearer sk_test_…` (test mode) or `sk_live_…` (live mode),',
  'or as the user name of HTTP Basic with an empty password (`curl -u sk_test_…:`).',
  'A key created read-only can only `GET`.',
  '',
  '**Errors.** Every failure answers `{code, message, details?, fields?}` with the HTTP status of its code; a',
  '`VALIDATION_ERROR` lists every invalid field in `fields`.',
  '',
  '**Retries.** Send an `Idempotency-Key` header on every `POST`: the same key with the same body replays the first',
  'answer (`Idempotent-Replayed: true`) for 24 hours; the same key with another body is a 409 `IDEMPOTENCY_KEY_REUSED`.',
  '',
  '**Lists** take `limit` (1–100, default 20) and `startingAfter` (the last id of the previous page) and answer',
  '`{data, hasMore}`. **Amounts** are integers in the minor unit of their currency (cents for EUR, francs for XPF).',
  '',
  '**Webhooks.** Every event type and its payload is in the `webhooks` section of this document.',
  '',
  '**Guides.** How it all works, beside this reference: [accepting payments](/docs/guides/payments),',
  '[the hosted checkout](/docs/guides/checkout), [saved cards](/docs/guides/wallet), [webhooks](/docs/guides/webhooks)',
  'and [every event](/docs/guides/events), [the typed libraries](/docs/guides/libraries), [the CLI](/docs/guides/cli);',
  '[all the guides](/docs/guides).',
].join('\n');

/** The version of Motu that serves the document (package.json), read when the app is built. */
export function motuVersion(): string {
  // The same relative path from src/http and from dist/http.
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

const ADMIN_INTRO = [
  'The operator\'s API of a Motu installation: merchants, their contracts, stores, keys and back-office users, and the',
  'money operations done with the bank. Every call sends the installation\'s admin token (`MOTU_ADMIN_TOKEN`) as',
  '`Authorization: Bearer …`; this document is served behind the same token.',
].join('\n');

/** Options of the merchant document's @fastify/swagger registration. */
export function merchantDocumentOptions(publicUrl: string): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Motu API',
        version: motuVersion(),
        description: MERCHANT_INTRO,
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: publicUrl, description: 'This Motu installation' }],
      tags: MERCHANT_TAGS.map((tag) => ({ ...tag })),
      components: {
        securitySchemes: {
          secretKey: { type: 'http', scheme: 'bearer', description: 'Your secret key: sk_test_… in test mode, sk_live_… in live mode' },
        },
      },
      security: [{ secretKey: [] }],
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    // The admin API has its own document.
    transform: ({ schema, url }) => ({ schema: url.startsWith('/admin/') ? { ...schema, hide: true } : schema, url }),
    transformObject: (document) => finishDocument((document as { openapiObject: Json }).openapiObject, 'merchant'),
  };
}

/** Options of the admin document's registration, decorated as `app.adminSwagger()`. */
export function adminDocumentOptions(publicUrl: string): SwaggerOptions {
  return {
    decorator: 'adminSwagger',
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Motu admin API', version: motuVersion(), description: ADMIN_INTRO, license: { name: 'MIT', identifier: 'MIT' } },
      servers: [{ url: publicUrl, description: 'This Motu installation' }],
      tags: ADMIN_TAGS.map((tag) => ({ ...tag })),
      components: {
        securitySchemes: { adminToken: { type: 'http', scheme: 'bearer', description: 'The installation\'s MOTU_ADMIN_TOKEN' } },
      },
      security: [{ adminToken: [] }],
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transform: ({ schema, url }) => ({ schema: url.startsWith('/admin/') ? schema : { ...schema, hide: true }, url }),
    transformObject: (document) => finishDocument((document as { openapiObject: Json }).openapiObject, 'admin'),
  };
}

/** `METHOD /path` as OPERATIONS keys it. */
export function operationKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}

/** Every operation of a document, with its key. */
export function operationsOf(doc: Json): Array<{ key: string; path: string; method: string; op: Json }> {
  const out: Array<{ key: string; path: string; method: string; op: Json }> = [];
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (op) out.push({ key: operationKey(method, path), path, method, op });
    }
  }
  return out;
}

const ERROR_RESPONSES: Record<ErrorStatus, { name: string; description: string; example: Json; onBehalf?: string }> = {
  400: {
    name: 'BadRequest',
    description: 'A field is missing or invalid (VALIDATION_ERROR, with every invalid field in `fields`), or a store rule refused the call',
    example: {
      code: 'VALIDATION_ERROR', message: 'order.amount: must be >= 1', details: { field: 'order.amount' },
      fields: [{ field: 'order.amount', message: 'must be >= 1' }],
    },
  },
  401: { name: 'Unauthorized', description: 'The key or token is missing, unknown or revoked', example: { code: 'UNAUTHORIZED', message: 'Send your secret key as "Authorization: Bearer sk_test_…"' } },
  403: {
    name: 'Forbidden',
    description: 'The key may not do this (a read-only key writing, a live key on a test helper)',
    onBehalf: '; or, for an agency acting with `Motu-Account`, its mandate does not grant the scope of this operation (PERMISSION_DENIED, the scope in `details.scope`) or was revoked (MANDATE_REVOKED)',
    example: { code: 'PERMISSION_DENIED', message: 'This key can only read; use a key with write permission' } },
  404: {
    name: 'NotFound',
    description: 'No such object for this merchant and mode',
    onBehalf: '; or, with `Motu-Account`, no mandate of this agency on that account',
    example: { code: 'NOT_FOUND', message: 'No payment with id pay_3xRk9TQv2LmZ7bNc8WpY4d', details: { id: 'pay_3xRk9TQv2LmZ7bNc8WpY4d' } },
  },
  409: {
    name: 'Conflict',
    description: 'The Idempotency-Key was used with another body, or its first request is still running; or the object already exists',
    example: { code: 'IDEMPOTENCY_KEY_REUSED', message: 'This Idempotency-Key was used with another request' },
  },
  410: { name: 'Gone', description: 'The session has expired or is finished', example: { code: 'SESSION_EXPIRED', message: 'This session has expired' } },
  422: {
    name: 'UnprocessableEntity',
    description: 'The request is well formed but the object\'s state forbids it (a payment not capturable, a refund above what was captured…)',
    example: { code: 'PAYMENT_NOT_CAPTURABLE', message: 'Only an authorized payment can be captured; this one is captured' },
  },
  429: {
    name: 'TooManyRequests',
    description: 'Too many requests for this key; retry after the number of seconds in Retry-After',
    example: { code: 'RATE_LIMITED', message: 'Too many requests; retry in 12 s', details: { retryAfterSeconds: 12, limit: 100 } },
  },
  503: {
    name: 'ServiceUnavailable',
    description: 'The acquirer (or the operator\'s bank account) is not configured or not reachable; retry later',
    example: { code: 'ACQUIRER_NOT_CONFIGURED', message: 'No live acquirer is configured on this service' },
  },
};

/** The statuses an operation answers: those of its kind, then its own (OPERATIONS). */
export function errorStatuses(kind: Kind, key: string, op: Json): ErrorStatus[] {
  const [method, path] = key.split(' ') as [string, string];
  const hasInput = Array.isArray(op.parameters) && op.parameters.length > 0 || op.requestBody !== undefined;
  const statuses = new Set<ErrorStatus>();
  if (path.startsWith('/api/v1/sdk/')) {
    for (const s of [400, 404, 410, 429] as const) statuses.add(s);
  } else {
    if (hasInput || method === 'POST') statuses.add(400);
    statuses.add(401);
    if (kind === 'merchant') statuses.add(403);
    if (path.includes('{')) statuses.add(404);
    if (kind === 'merchant' && method === 'POST') statuses.add(409);
    if (kind === 'merchant') statuses.add(429);
  }
  for (const s of OPERATIONS[key]?.errors ?? []) statuses.add(s);
  if (actsOnBehalf(kind, key)) for (const s of ON_BEHALF_ERRORS) statuses.add(s);
  return [...statuses].sort((a, b) => a - b);
}

/** Whether an agency may call this merchant operation for its client with the Motu-Account header. */
export function actsOnBehalf(kind: Kind, key: string): boolean {
  const scope = ROUTE_SCOPES[key];
  return kind === 'merchant' && scope !== undefined && scope !== ON_BEHALF_REFUSED;
}

function isIdempotent(kind: Kind, key: string): boolean {
  return kind === 'merchant' && key.startsWith('POST /api/v1/') && !key.startsWith('POST /api/v1/sdk/');
}

/** Adds what a generator needs to the document @fastify/swagger built. */
export function finishDocument(doc: Json, kind: Kind): Json {
  const components = (doc.components ??= {}) as Json;
  const used = new Set<ErrorStatus>();
  for (const { key, op } of operationsOf(doc)) {
    const row = OPERATIONS[key];
    if (row) {
      op.operationId = row.id;
      op.tags = [row.tag];
    }
    const responses = (op.responses ??= {}) as Json;
    for (const status of errorStatuses(kind, key, op)) {
      responses[String(status)] ??= { $ref: `#/components/responses/${ERROR_RESPONSES[status].name}` };
      used.add(status);
    }
    if (isIdempotent(kind, key)) {
      const parameters = (op.parameters ??= []) as Json[];
      parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
    }
    if (actsOnBehalf(kind, key)) ((op.parameters ??= []) as Json[]).push({ $ref: '#/components/parameters/MotuAccount' });
  }
  const responses: Json = {};
  for (const status of [...used].sort((a, b) => a - b)) {
    const { name, description, example, onBehalf } = ERROR_RESPONSES[status];
    responses[name] = {
      // The merchant document's 403 and 404 also answer an agency acting for its client (Motu-Account).
      description: kind === 'merchant' && onBehalf ? description + onBehalf : description,
      ...(status === 429 ? { headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 1 }, example: 12 } } } : {}),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example } },
    };
  }
  components.responses = responses;
  if (kind === 'merchant') {
    components.parameters = {
      IdempotencyKey: {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: 'Makes a retry safe: the same key with the same body replays the first answer for 24 hours; with another body it is a 409 IDEMPOTENCY_KEY_REUSED',
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
        example: 'order-4711-attempt-1',
      },
      MotuAccount: {
        name: 'Motu-Account',
        in: 'header',
        required: false,
        description: 'An agency acting for its client: the client\'s merchant id, with the agency\'s own key. The client must have given the agency a mandate granting the scope of this operation: a scope it lacks is a 403 PERMISSION_DENIED (the scope in `details.scope`), a revoked mandate a 403 MANDATE_REVOKED, no mandate a 404. The answer is the client\'s, and the objects the agency creates show `actedBy: {agencyId}`.',
        schema: { type: 'string', minLength: 1, maxLength: 64 },
        example: exampleId('mer', 1),
      },
    };
  }
  const schemas = (components.schemas ??= {}) as Json;
  const error = schemas.Error as Json | undefined;
  if (error) {
    const properties = error.properties as Record<string, Json>;
    properties.code = { ...properties.code, enum: Object.keys(ERROR_STATUS), description: 'Stable: branch on it, never on the message' };
  }
  finishSchemas(doc, kind);
  if (kind === 'merchant') declareActedBy(doc);
  if (kind === 'merchant') doc.webhooks = webhooksSection(components);
  return doc;
}

/** The named objects an agency can create for its client, which then carry `actedBy` (src/http/acted-by.ts). */
const ACTED_BY_OBJECTS = [
  'PaymentSessionCreated', 'PaymentSession', 'PaymentLink', 'Payment', 'Refund', 'Customer', 'UpdatedCustomer', 'Subscription',
  'Invoice', 'CreditNote',
];

/**
 * `actedBy: {agencyId}`, added to the answers by an onSend hook (acted-by.ts), declared optional on the objects that
 * carry it, and on the unnamed objects answered by the same routes (an invoice sent).
 */
function declareActedBy(doc: Json): void {
  const schemas = (doc.components as Json).schemas as Record<string, Json>;
  schemas.ActedBy = {
    type: 'object',
    description: 'Present when an agency created this object for the merchant under a mandate (Motu-Account)',
    required: ['agencyId'],
    properties: { agencyId: { type: 'string', description: 'The agency\'s merchant id', example: exampleId('mer', 2) } },
    additionalProperties: false,
  };
  const ref = { $ref: '#/components/schemas/ActedBy' };
  const declare = (schema: Json | undefined) => {
    const properties = schema?.properties as Json | undefined;
    if (schema?.type === 'object' && properties && (properties.id || properties.paymentId)) properties.actedBy = { ...ref };
  };
  for (const name of ACTED_BY_OBJECTS) {
    if (!schemas[name]) throw new Error(`openapi: ${name}, which can carry actedBy, is not a named schema`);
    declare(schemas[name]);
  }
  for (const { key, op } of operationsOf(doc)) {
    if (!ACTED_BY_READS.test(key)) continue;
    for (const [status, response] of Object.entries((op.responses ?? {}) as Record<string, Json>)) {
      const schema = ((response.content as Json | undefined)?.['application/json'] as Json | undefined)?.schema as Json | undefined;
      if (status.startsWith('2') && schema && !schema.$ref && !(schema.properties as Json | undefined)?.data) declare(schema);
    }
  }
}
