// What only the merchant's team needs, beside the merchant API it calls with its session cookie (/dashboard/api):
// API keys, the merchant's settings, stores (for filters), the audit log, a payment's timeline, the home page and the Go live checklist.
// Each route is a thin call into the service that owns the rule; the role checks are in roles.ts.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { IdParams, ListQuery } from '../../http/schemas.js';
import { AppError } from '../../shared/errors.js';
import type { AuditService } from '../audit/audit.service.js';
import type { ApiKeysService } from '../merchants/api-keys.js';
import { LOGO_BODY_LIMIT, LogoBody, MerchantPatch } from '../merchants/merchants.routes.js';
import type { MerchantsService } from '../merchants/merchants.service.js';
import type { StoresService } from '../merchants/stores.service.js';
import { mayChangeSettings, mayGoLive, mayManageKeys } from '../users/roles.js';
import { signedIn } from '../users/users.routes.js';
import type { GoLiveService } from './go-live.js';
import type { HomeService } from './home.js';
import type { TimelineService } from './timeline.js';

const doc = { tags: ['back-office'], hide: true } as const;

const KeyCreateBody = Type.Object({
  permission: Type.Optional(Type.Union([Type.Literal('write'), Type.Literal('read')])),
  storeId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
}, { additionalProperties: false });
/** The merchant's own settings: everything the operator's PATCH takes but the merchant's name (the operator's). */
const SettingsPatch = Type.Omit(MerchantPatch, ['name'], { additionalProperties: false, minProperties: 1 });
const AuditQuery = Type.Object({
  ...ListQuery,
  objectId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  userId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
}, { additionalProperties: false });

export interface BackOfficeDeps {
  apiKeys: ApiKeysService;
  merchants: MerchantsService;
  stores: StoresService;
  audit: AuditService;
  timeline: TimelineService;
  home: HomeService;
  goLive: GoLiveService;
  defaultTimezone: string;
}

export function backOfficeRoutes(deps: BackOfficeDeps) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get('/keys', { schema: doc }, async (request) => {
      const user = signedIn(request);
      if (!mayManageKeys(user.role)) throw new AppError('PERMISSION_DENIED', 'Only owners, admins and developers see API keys');
      return { data: await deps.apiKeys.list(user) };
    });
    app.post<{ Body: Static<typeof KeyCreateBody> }>('/keys', { schema: { ...doc, body: KeyCreateBody } }, async (request, reply) => {
      const user = signedIn(request);
      if (!mayManageKeys(user.role)) throw new AppError('PERMISSION_DENIED', 'Only owners, admins and developers create API keys');
      return reply.code(201).header('cache-control', 'no-store').send(await deps.apiKeys.createOwned(user, user.userId, request.body));
    });
    app.delete<{ Params: Static<typeof IdParams> }>('/keys/:id', { schema: { ...doc, params: IdParams } }, async (request) => {
      const user = signedIn(request);
      if (!mayManageKeys(user.role)) throw new AppError('PERMISSION_DENIED', 'Only owners, admins and developers revoke API keys');
      return deps.apiKeys.revokeOwned(user, request.params.id);
    });

    app.get('/stores', { schema: doc }, async (request) => ({ data: await deps.stores.listOf(signedIn(request).merchantId) }));

    app.get('/settings', { schema: doc }, async (request) => settingsView(await deps.merchants.getMerchant(signedIn(request).merchantId)));
    app.patch<{ Body: Static<typeof SettingsPatch> }>('/settings', { schema: { ...doc, body: SettingsPatch } }, async (request) => {
      const user = signedIn(request);
      if (!mayChangeSettings(user.role)) throw new AppError('PERMISSION_DENIED', 'Only owners and admins change the settings');
      return settingsView(await deps.merchants.updateMerchant(user.merchantId, request.body));
    });
    app.put<{ Body: Static<typeof LogoBody> }>('/settings/logo', { bodyLimit: LOGO_BODY_LIMIT, schema: { ...doc, body: LogoBody } }, async (request) => {
      const user = signedIn(request);
      if (!mayChangeSettings(user.role)) throw new AppError('PERMISSION_DENIED', 'Only owners and admins change the settings');
      return settingsView(await deps.merchants.setLogo(user.merchantId, request.body.image));
    });
    app.delete('/settings/logo', { schema: doc }, async (request) => {
      const user = signedIn(request);
      if (!mayChangeSettings(user.role)) throw new AppError('PERMISSION_DENIED', 'Only owners and admins change the settings');
      return settingsView(await deps.merchants.removeLogo(user.merchantId));
    });

    app.get<{ Querystring: Static<typeof AuditQuery> }>('/audit', { schema: { ...doc, querystring: AuditQuery } },
      async (request) => deps.audit.list(signedIn(request), request.query));
    app.get<{ Params: Static<typeof IdParams> }>('/payments/:id/timeline', { schema: { ...doc, params: IdParams } },
      async (request) => deps.timeline.of(signedIn(request), request.params.id));
    app.get('/home', { schema: doc }, async (request) => {
      const user = signedIn(request);
      const merchant = await deps.merchants.getMerchant(user.merchantId);
      return deps.home.home(user, merchant.timezone ?? deps.defaultTimezone);
    });
    // Whatever mode the session is in: the checklist is about the live environment.
    app.get('/go-live', { schema: doc }, async (request) => {
      const user = signedIn(request);
      if (!mayGoLive(user.role)) throw new AppError('PERMISSION_DENIED', 'Only owners and admins see what going live needs');
      return deps.goLive.checklist(user.merchantId);
    });
  };
}

function settingsView(m: Awaited<ReturnType<MerchantsService['getMerchant']>>) {
  return {
    name: m.name, displayName: m.displayName, primaryColor: m.primaryColor, accentColor: m.accentColor, timezone: m.timezone,
    legalName: m.legalName, address: m.address, registrationNumber: m.registrationNumber, taxId: m.taxId,
    invoiceFooter: m.invoiceFooter, latePaymentTerms: m.latePaymentTerms, earlyPaymentDiscount: m.earlyPaymentDiscount, logoUrl: m.logoUrl,
  };
}
