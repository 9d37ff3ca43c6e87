// Text that no database column can hold: PostgreSQL refuses U+0000 in text and JSON ("invalid byte sequence"),
// which would surface as a 500 after the handler already ran. Any NUL in a path parameter, the query string or a
// JSON string (values and keys) is refused up front as a 400 naming the field, on every dialect alike.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalidField } from '../shared/errors.js';

function fieldOf(path: Array<string | number>, part: string): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${p}` : p;
  out = out || part;
  return out.length > 200 ? `${out.slice(0, 200)}…` : out;
}

interface Visit {
  value: unknown;
  key: string | number | undefined;
  parent: Visit | undefined;
}

function pathOf(visit: Visit, extra?: string): Array<string | number> {
  const path: Array<string | number> = extra === undefined ? [] : [extra];
  for (let v: Visit | undefined = visit; v && v.key !== undefined; v = v.parent) path.unshift(v.key);
  return path;
}

/**
 * The path of the first string (or key) holding U+0000. Iterative, with parent links rather than copied paths,
 * so a body nested tens of thousands of levels deep costs time linear in its size.
 */
export function firstNul(value: unknown): Array<string | number> | undefined {
  const stack: Visit[] = [{ value, key: undefined, parent: undefined }];
  while (stack.length) {
    const visit = stack.pop()!;
    const v = visit.value;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return pathOf(visit);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: i, parent: visit });
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        if (k.includes('\u0000')) return pathOf(visit, k);
        stack.push({ value: child, key: k, parent: visit });
      }
    }
  }
  return undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The body was parsed from JSON text without a `\u0000` escape (registerJsonBodyParser): none of its strings holds U+0000. */
    jsonWithoutNul: boolean;
  }
}

/**
 * Whether JSON text may hold U+0000 once parsed. JSON.parse refuses a raw control character in a string, so the only
 * way in is the escape `\u0000` (a `\\u0000`, an escaped backslash, is counted too: the walk then tells).
 */
export function jsonMayHoldNul(text: string): boolean {
  return text.includes('\\u0000');
}

/**
 * Whether the parameters and query string, decoded from the URL, may hold U+0000: only a `%00` decodes to it (the
 * HTTP parser refuses a raw NUL in the request line, which is tested all the same).
 */
function urlMayHoldNul(url: string): boolean {
  return url.includes('%00') || url.includes('\u0000');
}

export function registerTextGuard(app: FastifyInstance): void {
  app.decorateRequest('jsonWithoutNul', false);
  app.addHook('preValidation', (request: FastifyRequest, _reply, done) => {
    // Most requests: nothing in their text can decode to U+0000, and nothing is walked.
    const body = request.body;
    if (!urlMayHoldNul(request.url) && (body === undefined || body === null || request.jsonWithoutNul)) return done();
    for (const [part, value] of [['params', request.params], ['querystring', request.query], ['body', request.body]] as const) {
      const path = firstNul(value);
      if (path) return done(invalidField(fieldOf(path, part), 'must not contain the NUL character (U+0000)'));
    }
    done();
  });
}
