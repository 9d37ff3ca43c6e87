// Operator admin API, /admin/v1; each call is also a `motu` command (README.md). Authenticated by the admin token.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { IdParams, ListQuery } from '../../http/schemas.js';
import type { MerchantsService } from './merchants.service.js';
import { HEX_COLOR } from './branding.js';
import { INVOICE_TEXT_BOUNDS } from './invoice-terms.js';
import { MerchantCreated, MerchantDetail, MerchantList } from './merchants.schemas.js';

export const MerchantBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });
const Color = Type.String({ pattern: HEX_COLOR, description: '#rrggbb' });
export const MerchantPatch = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    displayName: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()], { description: 'shown to customers; null: the name' })),
    primaryColor: Type.Optional(Type.Union([Color, Type.Null()], { description: 'the Pay button and the SDK default theme; null: the default' })),
    accentColor: Type.Optional(Type.Union([Color, Type.Null()], { description: 'links and focus rings; null: the primary colour' })),
    timezone: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], { description: 'IANA time zone of receipts (Pacific/Tahiti); null: MOTU_TIMEZONE' })),
    legalName: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()], { description: 'the legal name on invoices' })),
    address: Type.Optional(Type.Union([Type.Object({
      line1: Type.String({ minLength: 1, maxLength: 200 }), line2: Type.Optional(Type.String({ maxLength: 200 })),
      postalCode: Type.String({ minLength: 1, maxLength: 20 }), city: Type.String({ minLength: 1, maxLength: 100 }), country: Type.String({ pattern: '^[A-Z]{2}$' }),
    }, { additionalProperties: false }), Type.Null()], { description: 'the legal address on invoices' })),
    registrationNumber: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 50 }), Type.Null()], { description: 'TAHITI, RIDET, SIREN…' })),
    taxId: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 50 }), Type.Null()], { description: 'the tax number on invoices' })),
    invoiceFooter: Type.Optional(Type.Union([Type.String({ maxLength: INVOICE_TEXT_BOUNDS.invoiceFooter }), Type.Null()], {
      description: 'printed at the foot of every invoice and credit note (bank details, a thank-you…); null or blank: none' })),
    latePaymentTerms: Type.Optional(Type.Union([Type.String({ maxLength: INVOICE_TEXT_BOUNDS.latePaymentTerms }), Type.Null()], {
      description: 'the late-payment penalty terms invoices print; null or blank: the statutory rate (the ECB rate plus 10 points)' })),
    earlyPaymentDiscount: Type.Optional(Type.Union([Type.String({ maxLength: INVOICE_TEXT_BOUNDS.earlyPaymentDiscount }), Type.Null()], {
      description: 'the early-payment discount invoices print; null or blank: "no discount for early payment"' })),
    platform: Type.Optional(Type.Boolean({ description: 'a marketplace: its keys may onboard and manage sellers (/api/v1/platform)' })),
    agency: Type.Optional(Type.Boolean({ description: 'an agency: its keys may manage client accounts under mandates' })),
  },
  { additionalProperties: false, minProperties: 1 },
);
/** A logo upload: the file's bytes in base64; what they are is read from them, never from a declared type. */
export const LogoBody = Type.Object({
  image: Type.String({ minLength: 1, maxLength: 4 * 1024 * 1024, description: 'the PNG, JPEG or WebP file in base64 (at most 512 KB once decoded, 16 to 2048 pixels a side); SVG is refused' }),
}, { additionalProperties: false });
/** Room for a file over the 512 KB rule, so it is answered the rule (400), not a bare 413. */
export const LOGO_BODY_LIMIT = 6 * 1024 * 1024;
const MerchantListQuery = Type.Object(ListQuery, { additionalProperties: false });
// Admin routes are authenticated by the operator's token, not by a merchant key (OpenAPI `security`).
export const doc = { tags: ['admin'], security: [{ adminToken: [] }] };

export function merchantsRoutes(service: MerchantsService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Body: Static<typeof MerchantBody> }>(
      '/merchants',
      { schema: { ...doc, summary: 'Create a merchant with its keys, webhook secrets and default contract', body: MerchantBody, response: { 201: MerchantCreated } } },
      async (request, reply) => reply.code(201).send(await service.createMerchant(request.body)),
    );
    app.get<{ Querystring: Static<typeof MerchantListQuery> }>(
      '/merchants',
      { schema: { ...doc, summary: 'List merchants, newest first', querystring: MerchantListQuery, response: { 200: MerchantList } } },
      async (request) => service.listMerchants(request.query),
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/merchants/:id',
      { schema: { ...doc, summary: 'Read a merchant with its contracts and stores', params: IdParams, response: { 200: MerchantDetail } } },
      async (request) => service.getMerchant(request.params.id),
    );
    app.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof MerchantPatch> }>(
      '/merchants/:id',
      { schema: { ...doc, summary: "Change a merchant's name, display name, colours, time zone, legal identity and its platform and agency flags", params: IdParams, body: MerchantPatch, response: { 200: MerchantDetail } } },
      async (request) => service.updateMerchant(request.params.id, request.body),
    );
    app.put<{ Params: Static<typeof IdParams>; Body: Static<typeof LogoBody> }>(
      '/merchants/:id/logo',
      { bodyLimit: LOGO_BODY_LIMIT, schema: { ...doc, summary: "Set the merchant's logo on the hosted pages (PNG, JPEG or WebP, at most 512 KB)", params: IdParams, body: LogoBody, response: { 200: MerchantDetail } } },
      async (request) => service.setLogo(request.params.id, request.body.image),
    );
    app.delete<{ Params: Static<typeof IdParams> }>(
      '/merchants/:id/logo',
      { schema: { ...doc, summary: "Remove the merchant's logo (the hosted pages show the name's initial)", params: IdParams, response: { 200: MerchantDetail } } },
      async (request) => service.removeLogo(request.params.id),
    );
  };
}
