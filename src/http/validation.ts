// Schema validation: one strict Ajv for bodies (no type coercion: "12" is not 12, unknown fields are refused),
// one for query strings and path parameters, where everything arrives as text and is coerced.
import AjvModule from 'ajv';
import addFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { FastifySchemaCompiler } from 'fastify';
import { JSON_LIMITS_KEYWORD, jsonLimitProblem, type JsonLimits } from './json-limits.js';

const Ajv = AjvModule.default;

function makeAjv(coerce: boolean, dropUnknown = false): InstanceType<typeof Ajv> {
  const ajv = new Ajv({
    allErrors: true,
    removeAdditional: dropUnknown ? 'all' : false,
    useDefaults: true,
    coerceTypes: coerce ? 'array' : false,
    strict: false,
  });
  addFormats.default(ajv);
  ajv.addFormat('date-time', { type: 'string', validate: isDateTime });
  ajv.addKeyword({
    keyword: JSON_LIMITS_KEYWORD,
    schemaType: 'object',
    errors: true,
    validate: function check(limits: JsonLimits, value: unknown) {
      const problem = jsonLimitProblem(value, limits);
      (check as { errors?: unknown[] }).errors = problem ? [{ keyword: JSON_LIMITS_KEYWORD, message: problem, params: {} }] : [];
      return problem === undefined;
    },
  });
  return ajv;
}

const rfc3339 = fullFormats['date-time'] as { validate: (value: string) => boolean };

/**
 * RFC 3339 date-time that a Date can hold: ajv-formats accepts a leap second (`23:59:60`), which `new Date` turns into
 * an Invalid Date, and the query then failed on our side. Such a time is refused like any other malformed one.
 */
function isDateTime(value: string): boolean {
  return rfc3339.validate(value) && !Number.isNaN(Date.parse(value));
}

let strictBody: InstanceType<typeof Ajv> | undefined;

/** The same strict validation the API applies to bodies, for callers outside HTTP (the CLI). */
export function bodyValidator(schema: object) {
  strictBody ??= makeAjv(false);
  return strictBody.compile(schema);
}

export function validatorCompiler(): FastifySchemaCompiler<unknown> {
  const body = makeAjv(false);
  const text = makeAjv(true);
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? body : text;
    return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
  };
}

/**
 * For the pages a browser opens (hosted checkout, wallet and invoice pages, the back-office): the same validation,
 * except that a query parameter the page does not know is dropped instead of refused. Their addresses collect
 * parameters nobody controls — the return parameters of a checkout sent back to the page, `utm_*` added by mail
 * clients and campaigns — and a page must not answer them with an error. The parameters a page declares are still
 * checked (an unknown `lang` value is refused), and the API keeps refusing unknown fields.
 */
export function pageValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const body = makeAjv(false);
  const text = makeAjv(true);
  const query = makeAjv(true, true);
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? body : httpPart === 'querystring' ? query : text;
    return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
  };
}
