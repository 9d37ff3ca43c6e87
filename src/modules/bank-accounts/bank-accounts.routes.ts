// The merchant's bank accounts through the merchant API. Thin: the rules live in bank-accounts.service.ts.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { merchantOf } from '../../http/auth.js';
import { IdParams, ListOf, ListQuery } from '../../http/schemas.js';
import type { BankAccountsService } from './bank-accounts.service.js';

export const BankAccountBody = Type.Object(
  {
    iban: Type.String({ minLength: 5, maxLength: 64, description: 'spaces allowed; never returned' }),
    holderName: Type.String({ minLength: 1, maxLength: 140 }),
    currency: Type.Union([Type.Literal('EUR'), Type.Literal('XPF')]),
    bic: Type.Optional(Type.String({ pattern: '^[A-Za-z]{6}[A-Za-z0-9]{2}([A-Za-z0-9]{3})?$', description: '8 or 11 characters' })),
  },
  { additionalProperties: false },
);

const BankAccountPatch = Type.Object({ default: Type.Literal(true) }, { additionalProperties: false });

export const BankAccount = Type.Object({
  id: Type.String({ description: 'ba_…' }),
  country: Type.String(),
  last4: Type.String(),
  currency: Type.String(),
  holderName: Type.String(),
  bic: Type.Union([Type.String(), Type.Null()]),
  fingerprint: Type.String({ description: 'the same for the same IBAN within this merchant and mode' }),
  status: Type.Union([Type.Literal('new'), Type.Literal('errored')]),
  default: Type.Boolean(),
  createdAt: Type.String(),
});

const List = Type.Object({ ...ListQuery }, { additionalProperties: false });
const tags = ['bank accounts'];

export function bankAccountsRoutes(service: BankAccountsService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Body: Static<typeof BankAccountBody> }>(
      '/bank-accounts',
      { schema: { tags, summary: 'Add a bank account (the first of a currency is its default)', body: BankAccountBody, response: { 201: BankAccount } } },
      async (request, reply) => reply.code(201).send(await service.create(merchantOf(request), request.body)),
    );
    app.get<{ Querystring: Static<typeof List> }>(
      '/bank-accounts',
      { schema: { tags, summary: 'List bank accounts, newest first', querystring: List, response: { 200: ListOf(BankAccount) } } },
      async (request) => service.list(merchantOf(request), request.query),
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/bank-accounts/:id',
      { schema: { tags, summary: 'Read a bank account', params: IdParams, response: { 200: BankAccount } } },
      async (request) => service.get(merchantOf(request), request.params.id),
    );
    app.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof BankAccountPatch> }>(
      '/bank-accounts/:id',
      { schema: { tags, summary: 'Make a bank account the default of its currency', params: IdParams, body: BankAccountPatch, response: { 200: BankAccount } } },
      async (request) => service.makeDefault(merchantOf(request), request.params.id),
    );
    app.delete<{ Params: Static<typeof IdParams> }>(
      '/bank-accounts/:id',
      {
        schema: {
          tags, summary: 'Delete a bank account (a default is replaced by the newest other of its currency)', params: IdParams,
          response: { 200: Type.Object({ id: Type.String(), deleted: Type.Literal(true) }) },
        },
      },
      async (request) => service.remove(merchantOf(request), request.params.id),
    );
  };
}
