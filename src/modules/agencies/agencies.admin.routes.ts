// Operator admin API: the mandates a merchant gave (as a client) or holds (as an agency), both modes.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { IdParams, ListOf, ListQuery } from '../../http/schemas.js';
import { doc } from '../merchants/merchants.routes.js';
import type { MerchantsService } from '../merchants/merchants.service.js';
import { MandateSchema } from './agencies.routes.js';
import type { AgencyMandatesService } from './mandates.service.js';

const Query = Type.Object(ListQuery, { additionalProperties: false });

export function agenciesAdminRoutes(merchants: MerchantsService, mandates: AgencyMandatesService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get<{ Params: Static<typeof IdParams>; Querystring: Static<typeof Query> }>(
      '/merchants/:id/mandates',
      { schema: { ...doc, summary: 'The mandates a merchant gave to agencies or holds as an agency, both modes, newest first', params: IdParams, querystring: Query, response: { 200: ListOf(MandateSchema) } } },
      async (request) => {
        await merchants.getMerchant(request.params.id);
        return mandates.listForOperator(request.params.id, request.query);
      },
    );
  };
}
