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

export function ListOf<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item), hasMore: Type.Boolean() });
}

export const Bool01 = Type.Boolean();
