// The hosted onboarding form: /onboarding/{token} (the form, and its POST), /onboarding/{token}/done (the
// confirmation, after the POST redirects: a reload never sends the form twice). The token in the URL is the session
// id with its HMAC, the page's only credential (as a checkout's session id is): a form posted from another site cannot
// name a session it does not know, and a session takes one submission.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { sendHtml } from '../../http/html.js';
import { hostedRateLimit, registerHostedRateLimit } from '../../http/hosted-rate-limit.js';
import { plainPageCsp, themeSource } from '../hosted/layout.js';
import { pageLang, type Lang } from '../../shared/lang.js';
import { AppError, notFound } from '../../shared/errors.js';
import type { OnboardingService, PageState } from '../../modules/platforms/onboarding.service.js';
import { brandOf, closedPage, donePage, formPage, FORM_FIELDS, ONBOARDING_CSS, unknownPage, type FormName, type FormValues } from './onboarding.page.js';

const Params = Type.Object({ token: Type.String({ maxLength: 200 }) });
const Query = Type.Object({ lang: Type.Optional(Type.String({ maxLength: 35 })) });
const field = Type.Optional(Type.String({ maxLength: 300 }));
const FormBody = Type.Object({
  legalName: field, registrationNumber: field, line1: field, line2: field, postalCode: field, city: field, country: field,
  firstName: field, lastName: field, birthDate: field, iban: field, currency: field, lang: field,
}, { additionalProperties: false });

type Req = { Params: Static<typeof Params>; Querystring: Static<typeof Query> };

/** ?lang= first, else the browser's first language, French by default. */
function langOf(request: FastifyRequest<Req>): Lang {
  if (request.query.lang) return pageLang(request.query.lang);
  const header = request.headers['accept-language'];
  return pageLang(typeof header === 'string' ? header.split(',')[0] : undefined);
}

/** `perMinute`: the form's submissions from one client address a minute (MOTU_HOSTED_PAGES_PER_MINUTE). */
export function onboardingPageRoutes(service: OnboardingService, perMinute: number) {
  const csp = (state: PageState) => plainPageCsp(themeSource(brandOf(state.platform, state.session.mode)));
  const path = (token: string) => `/onboarding/${encodeURIComponent(token)}`;

  const form = (reply: FastifyReply, token: string, state: PageState, lang: Lang, values: FormValues, errors: AppError['fields'] = [], status = 200) =>
    sendHtml(reply, formPage({
      lang, platform: state.platform, mode: state.session.mode, action: `${path(token)}?lang=${lang}`,
      otherLanguageUrl: `${path(token)}?lang=${lang === 'fr' ? 'en' : 'fr'}`, values, errors: errors ?? [],
      correction: state.enrollmentStatus === 'CORRECTION_REQUESTED' ? reasonsOf(state) : undefined, businessName: state.session.business_name,
    }), csp(state), status);

  const closed = (reply: FastifyReply, state: PageState, lang: Lang) =>
    sendHtml(reply, closedPage({ lang, platform: state.platform, mode: state.session.mode, status: state.status, refreshUrl: state.session.refresh_url }), csp(state), 410);

  return async function routes(app: FastifyInstance): Promise<void> {
    await registerHostedRateLimit(app);
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    app.get('/onboarding/assets/onboarding.css', { schema: { hide: true } }, async (_request, reply) =>
      reply.header('content-type', 'text/css; charset=utf-8').header('cache-control', 'public, max-age=300').send(ONBOARDING_CSS));

    app.get<Req>('/onboarding/:token', { schema: { hide: true, params: Params, querystring: Query } }, async (request, reply) => {
      const lang = langOf(request);
      const state = await service.pageOf(request.params.token);
      if (!state) return sendHtml(reply, unknownPage(lang), plainPageCsp(null), 404);
      if (state.status !== 'open') return closed(reply, state, lang);
      const values: FormValues = state.case
        ? {
          legalName: state.case.legalName, registrationNumber: state.case.registrationNumber, line1: state.case.address.line1,
          line2: state.case.address.line2, postalCode: state.case.address.postalCode, city: state.case.address.city,
          country: state.case.address.country, firstName: state.case.representative.firstName, lastName: state.case.representative.lastName,
          birthDate: state.case.representative.birthDate, currency: state.case.currency,
        }
        : { legalName: state.session.business_name ?? undefined, country: 'PF' };
      return form(reply, request.params.token, state, lang, values);
    });

    app.post<Req & { Body: Static<typeof FormBody> }>('/onboarding/:token', { schema: { hide: true, params: Params, querystring: Query, body: FormBody }, config: hostedRateLimit(perMinute) }, async (request, reply) => {
      const lang = request.body?.lang ? pageLang(request.body.lang) : langOf(request);
      const token = request.params.token;
      // The browser's form answers in pages; a program posting JSON gets the API's error shape.
      const browser = String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
      const state = await service.pageOf(token);
      if (!state) {
        if (!browser) throw notFound('onboarding session');
        return sendHtml(reply, unknownPage(lang), plainPageCsp(null), 404);
      }
      if (state.status !== 'open') {
        if (!browser) throw new AppError('ONBOARDING_SESSION_NOT_OPEN', `This onboarding session is ${state.status}`, { status: state.status });
        return closed(reply, state, lang);
      }
      const b = request.body ?? {};
      const values: FormValues = {};
      for (const name of Object.keys(FORM_FIELDS) as FormName[]) values[name] = b[name];
      try {
        await service.submit(token, {
          legalName: b.legalName ?? '', registrationNumber: b.registrationNumber ?? '',
          address: { line1: b.line1 ?? '', line2: b.line2, postalCode: b.postalCode ?? '', city: b.city ?? '', country: b.country ?? '' },
          representative: { firstName: b.firstName ?? '', lastName: b.lastName ?? '', birthDate: b.birthDate ?? '' },
          iban: b.iban ?? '', currency: b.currency as 'EUR',
        });
      } catch (err) {
        if (!browser) throw err;
        if (err instanceof AppError && err.code === 'VALIDATION_ERROR') return form(reply, token, state, lang, values, err.fields, 400);
        if (err instanceof AppError && (err.code === 'ONBOARDING_SESSION_NOT_OPEN' || err.code === 'ONBOARDING_CASE_REFUSED' || err.code === 'ONBOARDING_CASE_NOT_CORRECTABLE')) {
          const now = await service.pageOf(token);
          return closed(reply, { ...(now ?? state), status: now && now.status !== 'open' ? now.status : 'completed' }, lang);
        }
        // An agency's invitation that ended (a new client's form): the session's page says so, and links the invitation.
        if (err instanceof AppError && (err.code === 'INVITATION_EXPIRED' || err.code === 'INVITATION_NOT_PENDING')) {
          return closed(reply, { ...state, status: err.code === 'INVITATION_EXPIRED' ? 'expired' : 'cancelled' }, lang);
        }
        throw err;
      }
      if (!browser) return reply.code(201).send({ sessionId: state.session.id, status: 'completed' });
      return reply.redirect(`${path(token)}/done?lang=${lang}`, 303);
    });

    app.get<Req>('/onboarding/:token/done', { schema: { hide: true, params: Params, querystring: Query } }, async (request, reply) => {
      const lang = langOf(request);
      const state = await service.pageOf(request.params.token);
      if (!state) return sendHtml(reply, unknownPage(lang), plainPageCsp(null), 404);
      if (state.session.status !== 'completed' || !state.session.case_id || !state.enrollmentStatus) {
        return state.status === 'open' ? reply.redirect(`${path(request.params.token)}?lang=${lang}`, 302) : closed(reply, state, lang);
      }
      return sendHtml(reply, donePage({
        lang, platform: state.platform, mode: state.session.mode, caseId: state.session.case_id, status: state.enrollmentStatus, returnUrl: state.session.return_url,
      }), csp(state));
    });
  };
}

function reasonsOf(state: PageState): string[] {
  return state.reasons ?? [];
}
