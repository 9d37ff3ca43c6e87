// What the operator admin API answers about merchants, their contracts, stores and keys: the response schemas of
// /admin/v1 (the admin OpenAPI document and a client generated from it read them). Fastify writes an answer through
// its schema and leaves out any field the schema does not name, so each schema must name every field of the view it
// describes: the checks at the end fail the typecheck when a view and its schema part.
import { Type, type Static } from 'typebox';
import { Nullable, type Expect, type Same } from '../../http/schemas.js';
import type { contractView } from './contracts.service.js';
import type { merchantView, MerchantsService } from './merchants.service.js';
import type { storeView } from './stores.service.js';
import type { ApiKeysService } from './api-keys.js';

const Time = Type.String({ format: 'date-time' });

export const LegalAddress = Type.Object({
  line1: Type.String(), line2: Type.Optional(Type.String()), postalCode: Type.String(), city: Type.String(), country: Type.String(),
});

export const Merchant = Type.Object({
  id: Type.String(),
  name: Type.String(),
  displayName: Nullable(Type.String()),
  primaryColor: Nullable(Type.String()),
  accentColor: Nullable(Type.String()),
  timezone: Nullable(Type.String({ description: 'IANA time zone of the receipts; null: the service default (MOTU_TIMEZONE)' })),
  legalName: Nullable(Type.String()),
  address: Nullable(LegalAddress),
  registrationNumber: Nullable(Type.String()),
  taxId: Nullable(Type.String()),
  invoiceFooter: Nullable(Type.String({ description: 'printed at the foot of every invoice and credit note' })),
  latePaymentTerms: Nullable(Type.String({ description: "the invoices' late-payment penalty terms; null: the statutory rate" })),
  earlyPaymentDiscount: Nullable(Type.String({ description: "the invoices' early-payment discount; null: none" })),
  logoUrl: Nullable(Type.String({ description: "the logo on the hosted pages, a path on this server that changes with the picture; null: the name's initial" })),
  onPrimaryColor: Nullable(Type.String({ description: 'the text colour drawn on primaryColor (white or dark, by contrast)' })),
  platform: Type.Boolean({ description: 'a marketplace: its keys onboard and manage sellers (/api/v1/platform)' }),
  agency: Type.Boolean({ description: 'an agency: its keys manage client accounts under mandates' }),
  openedAt: Nullable(Type.String({ format: 'date-time', description: 'when its payment account was opened (it can collect); null: not yet' })),
  createdAt: Time,
});

export const MonextCredentialsView = Type.Object({
  merchantId: Type.String({ description: "Monext's merchant identifier" }),
  pointOfSaleReference: Type.String(),
  contractNumber: Type.String(),
  environment: Type.Union([Type.Literal('homologation'), Type.Literal('production')]),
  accessKeySet: Type.Literal(true, { description: 'an access key is kept (sealed); it is never shown' }),
});

export const Contract = Type.Object({
  id: Type.String(),
  merchantId: Type.String(),
  statementLabel: Type.String(),
  commissionRate: Type.Integer({ description: 'basis points: 250 = 2.50 %' }),
  fixedFee: Type.Integer({ description: 'EUR cents per payment' }),
  authorizationFee: Type.Integer({ description: 'EUR cents per authorization' }),
  taxRate: Type.Integer({ description: 'basis points' }),
  disputeFee: Type.Integer({ description: 'EUR cents per chargeback' }),
  active: Type.Boolean(),
  isDefault: Type.Boolean(),
  acquirer: Type.Union([Type.Literal('simulator'), Type.Literal('monext')]),
  monext: Nullable(MonextCredentialsView),
  createdAt: Time,
});

export const Store = Type.Object({
  id: Type.String(),
  merchantId: Type.String(),
  code: Type.String(),
  name: Type.String(),
  kind: Type.Union([Type.Literal('online'), Type.Literal('physical')]),
  active: Type.Boolean(),
  contractId: Nullable(Type.String()),
  createdAt: Time,
});

export const MerchantDetail = Type.Object({ ...Merchant.properties, contracts: Type.Array(Contract), stores: Type.Array(Store) });

export const MerchantCreated = Type.Object({
  id: Type.String(),
  name: Type.String(),
  testSecretKey: Type.String({ description: 'shown once' }),
  liveSecretKey: Type.String({ description: 'shown once' }),
  testWebhookSecret: Type.String(),
  liveWebhookSecret: Type.String(),
  defaultContractId: Type.String(),
});

export const MerchantList = Type.Object({ data: Type.Array(Merchant), hasMore: Type.Boolean() });

export const ApiKeyCreated = Type.Object({
  id: Type.String(),
  secretKey: Type.String({ description: 'shown once' }),
  mode: Type.Union([Type.Literal('test'), Type.Literal('live')]),
  permission: Type.Union([Type.Literal('write'), Type.Literal('read')]),
  storeId: Nullable(Type.String()),
});

export const ApiKeyRevoked = Type.Object({ id: Type.String(), revoked: Type.Literal(true), revokedAt: Nullable(Time) });

// Each view and its schema hold the same fields, checked both ways: a field missing from either fails the typecheck.
type Answer<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;
export type ViewsFitSchemas = [
  Expect<Same<Static<typeof Merchant>, ReturnType<typeof merchantView>>>,
  Expect<Same<Static<typeof Contract>, ReturnType<typeof contractView>>>,
  Expect<Same<Static<typeof Store>, ReturnType<typeof storeView>>>,
  Expect<Same<Static<typeof MerchantDetail>, Answer<MerchantsService['getMerchant']>>>,
  Expect<Same<Static<typeof MerchantCreated>, Answer<MerchantsService['createMerchant']>>>,
  Expect<Same<Static<typeof MerchantList>, Answer<MerchantsService['listMerchants']>>>,
  Expect<Same<Static<typeof ApiKeyCreated>, Answer<ApiKeysService['create']>>>,
  Expect<Same<Static<typeof ApiKeyRevoked>, Answer<ApiKeysService['revoke']>>>,
];
