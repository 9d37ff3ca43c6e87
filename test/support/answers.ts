// Every JSON answer of the API checked against what the OpenAPI document says the operation answers (the schema the
// typed library is generated from, with its enums), by an onSend hook of the test app (TestAppOptions.checkAnswers).
// A mismatch does not change the answer: it is recorded, and the test that made it fails in its `afterEach`
// (support/merchant-app.ts), listing what differs.
import AjvModule from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

type Json = Record<string, any>;
type Validate = ((value: unknown) => boolean) & { errors?: Array<{ instancePath: string; message?: string; params?: unknown }> | null };

const Ajv = AjvModule as unknown as typeof AjvModule.default;
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** The document's JSON Schema of `schema` (which may $ref its components), compiled once. */
export function schemaValidator(doc: Json): (schema: Json) => Validate {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'motu-openapi', components: doc.components });
  const cache = new Map<Json, Validate>();
  const rebase = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rebase);
    if (!node || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      out[key] = key === '$ref' && typeof value === 'string' && value.startsWith('#/components/')
        ? `motu-openapi${value}`
        : key === 'examples' || key === 'example' ? value : rebase(value);
    }
    return out;
  };
  return (schema) => {
    let validate = cache.get(schema);
    if (!validate) {
      validate = ajv.compile(rebase(schema) as Json) as unknown as Validate;
      cache.set(schema, validate);
    }
    return validate;
  };
}

export function describeErrors(validate: Validate): string {
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('; ');
}

export interface AnswerCheck {
  /** `METHOD /path status: what differs`, one per answer that its operation's schema refuses. */
  mismatches: string[];
  /** How many answers were checked. */
  checked: number;
}

/** Adds the hook to the app (before ready). Only the documented APIs (/api/v1, /admin/v1) are checked. */
export function checkAnswers(app: FastifyInstance): AnswerCheck {
  const result: AnswerCheck = { mismatches: [], checked: 0 };
  const documents = new Map<'merchant' | 'admin', { doc: Json; validator: (schema: Json) => Validate }>();
  const documentOf = (kind: 'merchant' | 'admin') => {
    let entry = documents.get(kind);
    if (!entry) {
      const doc = (kind === 'admin' ? (app as unknown as { adminSwagger(): Json }).adminSwagger() : app.swagger()) as Json;
      entry = { doc, validator: schemaValidator(doc) };
      documents.set(kind, entry);
    }
    return entry;
  };
  app.addHook('onSend', async (request, reply, payload) => {
    const route = request.routeOptions.url;
    const type = String(reply.getHeader('content-type') ?? '');
    if (!route || typeof payload !== 'string' || !type.startsWith('application/json')) return payload;
    const kind = route.startsWith('/admin/v1/') ? 'admin' : route.startsWith('/api/v1/') ? 'merchant' : undefined;
    if (!kind) return payload;
    const { doc, validator } = documentOf(kind);
    const path = route.replace(/:(\w+)/g, '{$1}');
    const operation = doc.paths?.[path]?.[request.method.toLowerCase()] as Json | undefined;
    // Routes the document hides (the event stream, the browser's SDK calls) answer no documented schema.
    if (!operation) return payload;
    const status = String(reply.statusCode);
    const at = `${request.method} ${path} ${status}`;
    let response = operation.responses?.[status] ?? operation.responses?.[`${status[0]}XX`] ?? operation.responses?.default;
    // Error answers are shared: `#/components/responses/NotFound`.
    if (typeof response?.$ref === 'string') response = doc.components?.responses?.[response.$ref.split('/').at(-1)];
    const schema = response?.content?.['application/json']?.schema as Json | undefined;
    result.checked++;
    if (!schema) {
      result.mismatches.push(`${at}: the document declares no JSON answer for this status`);
      return payload;
    }
    const validate = validator(schema);
    if (!validate(JSON.parse(payload))) result.mismatches.push(`${at}: ${describeErrors(validate)} in ${payload.slice(0, 400)}`);
    return payload;
  });
  return result;
}

/** Fails, listing them, when answers differed from the document since the last call; then forgets them. */
export function assertAnswersMatch(answers: AnswerCheck): void {
  const found = answers.mismatches.splice(0);
  if (found.length === 0) return;
  const shown = found.slice(0, 10).join('\n');
  throw new Error(`${found.length} answer(s) differ from the OpenAPI document:\n${shown}${found.length > 10 ? '\n…' : ''}`);
}
