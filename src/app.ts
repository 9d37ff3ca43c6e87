// buildApp(config, deps): the Fastify factory. Nothing global: tests build as many apps as they like.
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyBaseLogger, RouteOptions } from 'fastify';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { adminAuthHook } from './http/admin-auth.js';
import { merchantAuthHooks, rateLimitKey } from './http/auth.js';
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from './http/errors.js';
import { registerIdempotency } from './http/idempotency.js';
import { registerTextGuard } from './http/text-guard.js';
import { registerJsonBodyParser } from './http/json-limits.js';
import { gaugesOnScrape, queueGauges, registerMetrics } from './http/metrics.js';
import { Counter } from 'prom-client';
import { requestIdGenerator, requestIdHeader } from './http/request-id.js';
import { webhookQueueDepth } from './events/queue-depth.js';
import { mailQueueDepth } from './mail/queue-depth.js';
import { ErrorSchema } from './http/schemas.js';
import { pageValidatorCompiler, validatorCompiler } from './http/validation.js';
import { adminDocumentOptions, merchantDocumentOptions } from './http/openapi.js';
import { docsUiOptions } from './http/openapi-ui.js';
import { Guides } from './pages/guides/guides.js';
import { guidesRoutes } from './pages/guides/guides.routes.js';
import { lazyChildLoggerFactory, requestLogLine } from './http/logger.js';
import { AppError } from './shared/errors.js';
import { sealStoredWebhookSecrets, secretBoxFor } from './shared/secret-box.js';
import type { Clock } from './shared/clock.js';
import { systemClock } from './shared/clock.js';
import { customersRoutes } from './modules/customers/customers.routes.js';
import { apiKeysRoutes } from './modules/merchants/api-keys.routes.js';
import { contractsRoutes } from './modules/merchants/contracts.routes.js';
import { merchantsRoutes } from './modules/merchants/merchants.routes.js';
import { storesRoutes } from './modules/merchants/stores.routes.js';
import { paymentsRoutes } from './modules/payments/payments.routes.js';
import { lifecycleRoutes } from './modules/payments/lifecycle.routes.js';
import { refundsRoutes } from './modules/refunds/refunds.routes.js';
import { sessionsRoutes } from './modules/sessions/sessions.routes.js';
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.js';
import { eventStreamRoutes } from './modules/webhooks/stream.routes.js';
import { paymentMethodsRoutes } from './modules/wallet/payment-methods.routes.js';
import { walletSessionsRoutes } from './modules/wallet/wallet-sessions.routes.js';
import { LATE_AUTHORIZATION_WATCH_HOURS } from './modules/merchant-payments/merchant-payments.service.js';
import { merchantPaymentsRoutes } from './modules/merchant-payments/merchant-payments.routes.js';
import { walletPagesRoutes } from './pages/wallet/wallet.routes.js';
import { SdkService } from './sdk/sdk.service.js';
import { sdkRoutes } from './sdk/sdk.routes.js';
import { fieldsRoutes } from './acquirer/fields/fields.routes.js';
import { sessionTokenBudget, sessionTokenCheck } from './modules/sessions/token-budget.js';
import { monextRoutes, widgetStarter } from './acquirer/monext/monext.routes.js';
import { monextCsp } from './acquirer/monext/monext.config.js';
import { cardEntryCheck, cardEntryCompletion, cardEntrySession } from './modules/checkout/card-entry.js';
import { checkoutRoutes } from './pages/checkout/checkout.routes.js';
import { balanceAdminRoutes, balanceRoutes } from './modules/ledger/balance.routes.js';
import { bankAccountsRoutes } from './modules/bank-accounts/bank-accounts.routes.js';
import { payoutsAdminRoutes, payoutsRoutes } from './modules/payouts/payouts.routes.js';
import { disputesAdminRoutes, disputesRoutes } from './modules/disputes/disputes.routes.js';
import { invoicePageRoutes } from './pages/invoices/invoice-page.routes.js';
import { logoRoutes } from './pages/branding/logo.routes.js';
import { expiredRoutes } from './pages/hosted/expired.routes.js';
import { DocumentPdfs } from './pages/pdf/documents.js';
import { pdfPool } from './pages/pdf/pool.js';
import { dashboardPageRoutes } from './pages/dashboard/dashboard.routes.js';
import { faviconRoutes } from './http/favicon.js';
import { startRoutes } from './pages/start/start.routes.js';
import { invoicesRoutes } from './modules/invoices/invoices.routes.js';
import { subscriptionsRoutes } from './modules/subscriptions/subscriptions.routes.js';
import { testClocksRoutes } from './modules/test-clocks/test-clocks.routes.js';
import { backOfficeRoutes } from './modules/back-office/back-office.routes.js';
import { usersAdminRoutes } from './modules/users/users.admin.routes.js';
import { usersRoutes } from './modules/users/users.routes.js';
import { checkCsrf, registerAudit, resolveSession } from './http/dashboard-auth.js';
import { mailsRoutes } from './modules/back-office/mails.js';
import { agenciesRoutes } from './modules/agencies/agencies.routes.js';
import { agenciesAdminRoutes } from './modules/agencies/agencies.admin.routes.js';
import { refuseAccountHeader } from './http/acting.js';
import { registerActedBy } from './http/acted-by.js';
import { MandateGate } from './http/mandate-gate.js';
import { invitationPageRoutes } from './pages/agencies/invitation.routes.js';

import { onboardingAdminRoutes, platformRoutes } from './modules/platforms/platforms.routes.js';
import { onboardingListRoutes } from './modules/platforms/onboarding-lists.routes.js';
import { onboardingPageRoutes } from './pages/onboarding/onboarding.routes.js';
export interface AppDeps {
  db: Database;
  /** SHA-256 (hex) of the admin token. */
  adminTokenHash: string;
  clock?: Clock;
  logger?: FastifyBaseLogger;
  /** Called with every route as it is registered (the test sweeps derive their lists of routes from it). */
  onRoute?: (route: RouteOptions) => void;
}

import { buildServices } from './compose.js';

export { buildServices, type Services } from './compose.js';

export { REDACTED_PATHS } from './http/logger.js';

export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const clock = deps.clock ?? systemClock;
  const { db } = deps;
  const app = Fastify({
    loggerInstance: deps.logger,
    logger: deps.logger ? undefined : false,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: false,
    return503OnClosing: true,
    clientErrorHandler,
    frameworkErrors,
    ajv: undefined,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // One line per request at info (requestLogLine), not Fastify's two; a request's child logger is made on first use.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: deps.logger ? (lazyChildLoggerFactory as never) : undefined,
    // X-Request-Id on every answer: the caller's when it is a safe short token, else ours (src/http/request-id.ts).
    genReqId: requestIdGenerator(),
  });
  if (deps.onRoute) app.addHook('onRoute', deps.onRoute);
  requestIdHeader(app);
  if ((deps.logger as { isLevelEnabled?: (level: string) => boolean } | undefined)?.isLevelEnabled?.('info')) requestLogLine(app);
  app.setValidatorCompiler(validatorCompiler());
  app.decorateRequest('merchant', null);
  app.decorateRequest('authFailure', null);
  app.decorateRequest('user', null);
  app.decorateRequest('auditId', null);
  app.addSchema(ErrorSchema);
  registerErrorHandling(app);
  registerJsonBodyParser(app);
  registerTextGuard(app);

  // The merchant document (/api/v1/openapi.json, /docs) and the admin one (/admin/v1/openapi.json): src/http/openapi.ts.
  await app.register(swagger, merchantDocumentOptions(config.publicUrl));
  await app.register(swagger, adminDocumentOptions(config.publicUrl));
  await app.register(swaggerUi, docsUiOptions());
  // The guides (README.md and docs/*.md) beside the reference: /docs/guides.
  await app.register(guidesRoutes(new Guides()));

  const metrics = registerMetrics(app, config.metrics);
  const secretBox = secretBoxFor(config);
  if (secretBox.warning) app.log.warn(secretBox.warning);
  // Rows written before webhook secrets were encrypted at rest are sealed now (no-op afterwards).
  await sealStoredWebhookSecrets(db, secretBox);
  const services = buildServices(config, db, clock);
  const { merchantPayments } = services;
  gaugesOnScrape(metrics, {
    watched: {
      name: 'motu_late_authorizations_watched',
      help: 'Failed merchant-initiated payments watched for an authorization that reached the acquirer late (docs/payments.md, Recovery)',
    },
    overdue: {
      name: 'motu_late_authorizations_overdue',
      help: `Of those, payments failed more than ${LATE_AUTHORIZATION_WATCH_HOURS} hours ago: the acquirer still holds an authorization Motu could not give back`,
    },
  }, () => merchantPayments.lateAuthorizationWatch(clock.now()));
  queueGauges(metrics, 'webhook', () => webhookQueueDepth(db, clock.now()));
  queueGauges(metrics, 'mail', () => mailQueueDepth(db, clock.now()));

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await db.ping();
      return { status: 'ready', database: db.dialect };
    } catch {
      return reply.code(503).send({ code: 'SERVICE_UNAVAILABLE', message: 'The database is not reachable' });
    }
  });
  const takeTokenSlot = sessionTokenBudget(db, clock, config.tokensPerSession);
  await app.register(fieldsRoutes(services.acquirers, config.publicUrl, { perMinute: config.tokensPerMinute, takeTokenSlot }));
  const monextDeps = {
    publicUrl: config.publicUrl, resolve: (id: string, finished?: boolean) => cardEntrySession(db, id, finished),
    checkCardEntry: cardEntryCheck(services.checkout, sessionTokenCheck(clock, config.tokensPerSession)), takeTokenSlot,
    complete: cardEntryCompletion(services.checkout, services.walletSessions),
  };
  await app.register(monextRoutes(services.acquirers.monext, monextDeps));
  // Invoices, credit notes and receipts are drawn on worker threads, never on the event loop; kept once finalized.
  const pool = pdfPool(config.pdfThreads);
  app.addHook('onClose', () => pool.close());
  const drawn = new Counter({ name: 'motu_pdf_drawn_total', help: 'PDFs drawn (a kept PDF served again is not counted), by document kind', labelNames: ['kind'] as const, registers: [metrics] });
  const pdfs = new DocumentPdfs(db, clock, pool, (kind) => drawn.inc({ kind }));
  // The pages a browser opens: a query parameter they do not use is ignored, never refused (pageValidatorCompiler).
  await app.register(async (pages) => {
    pages.setValidatorCompiler(pageValidatorCompiler());
    await pages.register(checkoutRoutes(services.checkout, config.publicUrl, pdfs, config.hostedPagesPerMinute, monextCsp(undefined, config.monext.widgetUrl)));
    await pages.register(walletPagesRoutes(services.walletSessions, monextCsp(undefined, config.monext.widgetUrl)));
    await pages.register(invoicePageRoutes(services.invoices, pdfs, config.hostedPagesPerMinute));
    await pages.register(logoRoutes(services.merchants));
    await pages.register(expiredRoutes(db));
    await pages.register(dashboardPageRoutes());
    await pages.register(startRoutes());
    await pages.register(faviconRoutes());
    await pages.register(onboardingPageRoutes(services.onboarding, config.hostedPagesPerMinute));
    await pages.register(invitationPageRoutes({
      invitations: services.agencyInvitations, users: services.users, sessions: services.userSessions, publicUrl: config.publicUrl, perMinute: config.hostedPagesPerMinute,
      onboarding: services.onboarding,
    }));
  });
  await app.register(sdkRoutes(new SdkService(services.checkout, services.walletSessions, config.publicUrl), widgetStarter(services.acquirers.monext, monextDeps)));
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(
    async (admin) => {
      // The JSON APIs take JSON only: without this, Fastify's default text/plain parser lets a string reach the schema.
      admin.removeContentTypeParser('text/plain');
      admin.addHook('onRequest', adminAuthHook(deps.adminTokenHash));
      admin.get('/openapi.json', { schema: { hide: true } }, async () => (app as unknown as { adminSwagger(): unknown }).adminSwagger());
      await admin.register(merchantsRoutes(services.merchants));
      await admin.register(contractsRoutes(services.contracts));
      await admin.register(storesRoutes(services.stores));
      await admin.register(apiKeysRoutes(services.apiKeys));
      await admin.register(balanceAdminRoutes(services.balance));
      await admin.register(payoutsAdminRoutes(services.payouts, services.bankFiles));
      await admin.register(disputesAdminRoutes(services.disputes));
      await admin.register(usersAdminRoutes(services.users));
      await admin.register(onboardingAdminRoutes(services.onboarding));
      await admin.register(agenciesAdminRoutes(services.merchants, services.agencyMandates));
    },
    { prefix: '/admin/v1' },
  );

  await app.register(
    async (api) => {
      await api.register(rateLimit, {
        max: config.rateLimit.max,
        timeWindow: config.rateLimit.windowMs,
        // Runs after auth.identify (route-level hooks follow the instance's): keyed on the key's id, not the header's text.
        keyGenerator: rateLimitKey,
        errorResponseBuilder: (_request, context) => {
          const error = new AppError('RATE_LIMITED', `Too many requests; retry in ${Math.ceil(context.ttl / 1000)} s`, {
            retryAfterSeconds: Math.ceil(context.ttl / 1000),
            limit: context.max,
          });
          return error as unknown as object;
        },
      });
      api.removeContentTypeParser('text/plain');
      // An agency's changes on behalf and the changes of its mandate, kept apart (src/http/mandate-gate.ts).
      const gate = new MandateGate();
      const auth = merchantAuthHooks(db, services.userSessions, (agencyId, merchantId, mode) => services.agencyMandates.standing(agencyId, merchantId, mode), gate);
      api.addHook('onResponse', (request, _reply, done) => {
        request.leaveMandate?.();
        done();
      });
      api.addHook('onRequest', auth.identify);
      api.addHook('preParsing', auth.enforce);
      registerAudit(api, services.audit);
      registerActedBy(api, db, clock);
      registerIdempotency(api, db, clock, secretBox);
      await api.register(customersRoutes(services.customers));
      await api.register(sessionsRoutes(services.paymentSessions));
      await api.register(paymentsRoutes(services.payments));
      await api.register(lifecycleRoutes(services.lifecycle, services.payments));
      await api.register(refundsRoutes(services.refunds));
      await api.register(webhooksRoutes(services.webhooks, services.events));
      await api.register(eventStreamRoutes(services.events, clock, auth.stillValid));
      await api.register(paymentMethodsRoutes(services.wallet));
      await api.register(walletSessionsRoutes(services.walletSessions));
      await api.register(merchantPaymentsRoutes(merchantPayments));
      await api.register(balanceRoutes(services.balance));
      await api.register(bankAccountsRoutes(services.bankAccounts));
      await api.register(payoutsRoutes(services.payouts, services.payoutSchedule));
      await api.register(testClocksRoutes(services.testClocks));
      await api.register(disputesRoutes(services.disputes));
      await api.register(subscriptionsRoutes(services.subscriptions));
      await api.register(invoicesRoutes(services.invoices, pdfs));
      await api.register(platformRoutes(services.onboarding));
      await api.register(agenciesRoutes(services.agencyInvitations, services.agencyMandates, (id, change) => gate.exclusive(id, change)));
      await api.register(onboardingListRoutes(db, services.onboarding));
    },
    { prefix: '/api/v1' },
  );

  // The back-office's own routes: sign-in and set-up are open (rate-limited per client address, and the account's
  // lockout is in the database); every other route needs the session cookie, and every change its CSRF token.
  await app.register(
    async (dashboard) => {
      await dashboard.register(rateLimit, {
        max: config.rateLimit.max,
        timeWindow: config.rateLimit.windowMs,
        // Counted before the session is read: per client address (sign-in attempts above all).
        keyGenerator: (request) => `ip:${request.ip}`,
        errorResponseBuilder: (_request, context) => new AppError('RATE_LIMITED', `Too many requests; retry in ${Math.ceil(context.ttl / 1000)} s`, {
          retryAfterSeconds: Math.ceil(context.ttl / 1000), limit: context.max,
        }) as unknown as object,
      });
      dashboard.removeContentTypeParser('text/plain');
      const sessionOf = resolveSession(services.userSessions);
      dashboard.addHook('onRequest', async (request) => {
        refuseAccountHeader(request, 'The back-office works on its own account; an agency acts for a client through the API with its secret key');
        if (request.routeOptions.config?.public) return;
        const session = await sessionOf(request);
        if (!session) throw new AppError('UNAUTHORIZED', 'Sign in to the back-office first');
        checkCsrf(request, session);
      });
      registerAudit(dashboard, services.audit);
      const deps = { secureCookies: config.publicUrl.startsWith('https://'), defaultTimezone: config.timezone };
      await dashboard.register(usersRoutes({ users: services.users, sessions: services.userSessions, merchants: services.merchants, ...deps }));
      await dashboard.register(backOfficeRoutes({
        apiKeys: services.apiKeys, merchants: services.merchants, stores: services.stores, audit: services.audit,
        timeline: services.timeline, home: services.home, goLive: services.goLive, defaultTimezone: config.timezone,
      }));
      await dashboard.register(mailsRoutes({ db, mailer: config.mail !== undefined }));
    },
    { prefix: '/dashboard/api' },
  );

  return app;
}
