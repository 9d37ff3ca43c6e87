// Schemas shared by several route files: the error body, list envelopes, common parameters.
import { Type, type TSchema } from 'typebox';

export const ErrorSchema = Type.Object(
  {
    code: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    fields: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  },
  { $id: 'Error', description: 'Every failure has this shape' },
);

export const errorResponses = {
  400: { $ref: 'Error#' },
  401: { $ref: 'Error#' },
  403: { $ref: 'Error#' },
  404: { $ref: 'Error#' },
  409: { $ref: 'Error#' },
  422: { $ref: 'Error#' },
  429: { $ref: 'Error#' },
  500: { $ref: 'Error#' },
} as const;

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const ListQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  startingAfter: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
};

/** A value or null (a field always present, null when unset). */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export function ListOf<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item), hasMore: Type.Boolean() });
}

export const Bool01 = Type.Boolean();

/**
 * The success answer of a route that sends a file or a stream rather than JSON (a PDF, a bank file, server-sent
 * events): its media type in the OpenAPI document, so a generated client reads it as text or bytes. Fastify sends such
 * a body as it is; the schema only documents it.
 */
export function fileAnswer(mediaType: string, description: string, binary = false) {
  return { description, content: { [mediaType]: { schema: { type: 'string', ...(binary ? { format: 'binary' } : {}) } } } };
}

/**
 * True when two types hold the same fields, checked both ways. A route's response schema against the view its service
 * answers: Fastify writes an answer through the schema and leaves out any field the schema does not name, so
 * `Expect<Same<Static<typeof Schema>, View>>` fails the typecheck when the two part.
 */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export type Expect<T extends true> = T;
