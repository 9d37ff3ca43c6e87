import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { merchantOf } from '../../http/auth.js';
import { FreeJson } from '../../http/json-limits.js';
import { IdParams, ListOf, ListQuery } from '../../http/schemas.js';
import type { CustomersService } from './customers.service.js';

const Email = Type.String({ format: 'email', maxLength: 254 });
const Address = Type.Object(
  {
    streetNumber: Type.Optional(Type.String({ maxLength: 20 })),
    street: Type.Optional(Type.String({ maxLength: 200 })),
    line1: Type.Optional(Type.String({ maxLength: 200 })),
    line2: Type.Optional(Type.String({ maxLength: 200 })),
    complement: Type.Optional(Type.String({ maxLength: 200 })),
    city: Type.Optional(Type.String({ maxLength: 100 })),
    postalCode: Type.Optional(Type.String({ maxLength: 20 })),
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
    label: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
const Metadata = FreeJson({ keyMaxLength: 40, maxProperties: 50 });

export const CustomerBody = Type.Object(
  {
    email: Type.Optional(Email),
    externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    name: Type.Optional(Type.String({ maxLength: 200 })),
    phone: Type.Optional(Type.String({ maxLength: 30, pattern: '^\\+?[0-9 ().-]{3,30}$' })),
    address: Type.Optional(Address),
    metadata: Type.Optional(Metadata),
    testClockId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'test mode: the test clock the customer lives on (clk_…)' })),
  },
  { additionalProperties: false },
);

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));

export const CustomerPatch = Type.Object(
  {
    email: Nullable(Email),
    externalId: Nullable(Type.String({ minLength: 1, maxLength: 255 })),
    name: Nullable(Type.String({ maxLength: 200 })),
    phone: Nullable(Type.String({ maxLength: 30, pattern: '^\\+?[0-9 ().-]{3,30}$' })),
    address: Nullable(Address),
    metadata: Nullable(Metadata),
  },
  { additionalProperties: false },
);

export const Customer = Type.Object({
  id: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  externalId: Type.Union([Type.String(), Type.Null()]),
  name: Type.Union([Type.String(), Type.Null()]),
  phone: Type.Union([Type.String(), Type.Null()]),
  address: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  metadata: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  createdAt: Type.String(),
  testClockId: Type.Union([Type.String(), Type.Null()]),
  updatedAt: Type.String(),
});

const CustomerListQuery = Type.Object(
  {
    ...ListQuery, email: Type.Optional(Type.String({ maxLength: 254 })), externalId: Type.Optional(Type.String({ maxLength: 255 })),
    q: Type.Optional(Type.String({
      maxLength: 200, description: 'Search: the customers whose name, email or external id contains this text (any case), or whose id it is',
    })),
  },
  { additionalProperties: false },
);

const tags = ['customers'];

export function customersRoutes(service: CustomersService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Body: Static<typeof CustomerBody> }>(
      '/customers',
      { schema: { tags, summary: 'Create a customer', body: CustomerBody, response: { 201: Customer } } },
      async (request, reply) => reply.code(201).send(await service.create(merchantOf(request), request.body, request.idempotency?.key)),
    );
    app.get<{ Querystring: Static<typeof CustomerListQuery> }>(
      '/customers',
      { schema: { tags, summary: 'List customers, newest first', querystring: CustomerListQuery, response: { 200: ListOf(Customer) } } },
      async (request) => service.list(merchantOf(request), request.query),
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/customers/:id',
      { schema: { tags, summary: 'Read a customer', params: IdParams, response: { 200: Customer } } },
      async (request) => service.get(merchantOf(request), request.params.id),
    );
    app.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof CustomerPatch> }>(
      '/customers/:id',
      {
        schema: {
          tags,
          summary: 'Change a customer; the fields that changed are listed in updatedFields',
          params: IdParams,
          body: CustomerPatch,
          response: { 200: Type.Object({ ...Customer.properties, updatedFields: Type.Array(Type.String()) }) },
        },
      },
      async (request) => {
        const { customer, updatedFields } = await service.update(merchantOf(request), request.params.id, request.body);
        return { ...customer, updatedFields };
      },
    );
  };
}
