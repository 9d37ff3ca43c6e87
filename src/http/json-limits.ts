// Bounds on the shape of JSON. Free-form fields (privateData, order.platformConfig, customer metadata) are stored and
// later written into every list page and event that carries them: a value nested thousands of levels deep overflows
// the stack of JSON.stringify and the serializer, and once stored it would break those pages for good. Such values
// are refused at validation, naming the field (docs/payments.md, "Free-form JSON"); a raw body nested deeper than
// any route accepts is refused before JSON.parse.
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { invalidField } from '../shared/errors.js';
import { jsonMayHoldNul } from './text-guard.js';

export interface JsonLimits {
  /** Containers (objects, arrays) nested in one another, the field's own value counting as the first. */
  depth: number;
  /** Keys of any one object. */
  keys: number;
  /** Bytes of the value written as JSON (UTF-8). */
  bytes: number;
}

export const FREE_JSON_LIMITS: JsonLimits = { depth: 16, keys: 100, bytes: 16_384 };

/**
 * A raw JSON body nesting deeper than this is refused before parsing. Above any route's own structure (the deepest,
 * an order item's tax line, is 5 levels) plus a free-form field's FREE_JSON_LIMITS.depth, and far below what
 * overflows the stack.
 */
export const BODY_MAX_DEPTH = 32;

/** Schema keyword checked by the validator (src/http/validation.ts); also shown in the OpenAPI document. */
export const JSON_LIMITS_KEYWORD = 'x-json-limits';

/** What is wrong with `value` under `limits`, or undefined. Iterative: the depth of the value costs no stack. */
export function jsonLimitProblem(value: unknown, limits: JsonLimits): string | undefined {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > limits.depth) return `must not nest more than ${limits.depth} levels of objects and arrays`;
    if (Array.isArray(current)) {
      for (const item of current) stack.push({ value: item, depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(current);
    if (keys.length > limits.keys) return `must not have more than ${limits.keys} keys in one object`;
    for (const key of keys) stack.push({ value: (current as Record<string, unknown>)[key], depth: depth + 1 });
  }
  // Bounded in depth now, so JSON.stringify is safe.
  if (Buffer.byteLength(JSON.stringify(value)) > limits.bytes) return `must not exceed ${limits.bytes} bytes as JSON`;
  return undefined;
}

/** An object of free-form JSON values (privateData, metadata…), bounded by FREE_JSON_LIMITS. */
export function FreeJson(options: { keyMaxLength: number; maxProperties?: number; description?: string }) {
  const limits = FREE_JSON_LIMITS;
  const bound = `at most ${limits.depth} levels deep, ${limits.keys} keys per object and ${limits.bytes} bytes as JSON`;
  return Type.Record(Type.String({ maxLength: options.keyMaxLength }), Type.Unknown(), {
    maxProperties: options.maxProperties ?? limits.keys,
    description: options.description ? `${options.description}; ${bound}` : `any JSON, ${bound}`,
    [JSON_LIMITS_KEYWORD]: limits,
  });
}

/**
 * Where `text` (JSON) first nests deeper than `max`: the top-level key it happens under (the body's own field),
 * 'body' when there is none, undefined when it never does. Brackets outside strings are counted, strings skipped with
 * indexOf: linear in the length, nothing allocated but the key. Malformed text is left for JSON.parse to refuse.
 */
export function tooDeepAt(text: string, max: number): string | undefined {
  let depth = 0;
  let objectBody = false;
  let keyStart = -1;
  let keyEnd = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i;
      // The string ends at the next quote not escaped by an odd run of backslashes.
      for (;;) {
        const end = text.indexOf('"', i + 1);
        if (end < 0) return undefined;
        let slashes = 0;
        for (let j = end - 1; text.charCodeAt(j) === 0x5c; j--) slashes++;
        i = end;
        if (slashes % 2 === 0) break;
      }
      // In an object body, the last string read at depth 1 before a bracket opens is that value's key.
      if (depth === 1 && objectBody) {
        keyStart = start;
        keyEnd = i + 1;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (depth === 0) objectBody = c === 0x7b;
      if (++depth > max) return keyStart < 0 ? 'body' : keyOf(text.slice(keyStart, keyEnd));
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return undefined;
}

function keyOf(quoted: string): string {
  try {
    const key = JSON.parse(quoted) as string;
    return key.length > 0 && key.length <= 100 ? key : 'body';
  } catch {
    return 'body';
  }
}

/**
 * The JSON body parser of every route: Fastify's own (empty body, malformed JSON and prototype poisoning answered as
 * before), after a depth check on the raw text, so that no body, whatever the route or field, can nest deep enough
 * to overflow the stack of anything that later walks it.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const field = tooDeepAt(body as string, BODY_MAX_DEPTH);
    if (field !== undefined) {
      done(invalidField(field, `nests too deep (a body nests at most ${BODY_MAX_DEPTH} levels of objects and arrays)`), undefined);
      return;
    }
    request.jsonWithoutNul = !jsonMayHoldNul(body as string);
    parse(request, body as string, done);
  });
}
