// /agency-invitations/{token}: the hosted page of an agency's invitation, and its form. The client accepts as an owner
// of its back-office: already signed in (the session's cookie, and its CSRF token in the form), or signing in here
// with the back-office's own sign-in (its attempt counts and lockout, its two-factor), which opens the same session.
// A business with no Motu account yet posts `onboard` instead: it is sent to the onboarding form (a session tied to
// the invitation), and its approval opens its account and gives the agency its mandate.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { sendHtml } from '../../http/html.js';
import { sessionCookie, sessionToken, userPrincipal } from '../../http/dashboard-auth.js';
import { hostedRateLimit, registerHostedRateLimit } from '../../http/hosted-rate-limit.js';
import { AppError } from '../../shared/errors.js';
import { pageLang, type Lang } from '../../shared/lang.js';
import type { AgencyInvitationsService } from '../../modules/agencies/invitations.service.js';
import type { OnboardingService } from '../../modules/platforms/onboarding.service.js';
import type { UserSession, UserSessions } from '../../modules/users/user-sessions.js';
import type { UsersService } from '../../modules/users/users.service.js';
import { plainPageCsp, themeSource } from '../hosted/layout.js';
import { INVITATION_CSS, invitationNotFoundPage, invitationPage } from './invitation.views.js';

const Params = Type.Object({ token: Type.String({ maxLength: 64 }) });
const Query = Type.Object({ lang: Type.Optional(Type.String({ maxLength: 35 })) });
const Form = Type.Object({
  email: Type.Optional(Type.String({ maxLength: 254 })), password: Type.Optional(Type.String({ maxLength: 1024 })),
  code: Type.Optional(Type.String({ maxLength: 64 })), csrfToken: Type.Optional(Type.String({ maxLength: 128 })),
  onboard: Type.Optional(Type.String({ maxLength: 8 })),
}, { additionalProperties: false });

export interface InvitationPageDeps {
  invitations: AgencyInvitationsService;
  users: UsersService;
  sessions: UserSessions;
  publicUrl: string;
  perMinute: number;
  onboarding: OnboardingService;
}

export function invitationPageRoutes(deps: InvitationPageDeps) {
  const secure = deps.publicUrl.startsWith('https://');

  async function signedIn(request: FastifyRequest): Promise<UserSession | null> {
    const token = sessionToken(request);
    return token ? deps.sessions.resolve(token) : null;
  }

  async function render(reply: FastifyReply, lang: Lang, token: string, extra: { session?: UserSession | null; error?: string | null; acceptedBy?: string | null; email?: string }, status = 200) {
    const found = await deps.invitations.byToken(token).catch((err) => {
      if (err instanceof AppError && err.code === 'NOT_FOUND') return null;
      throw err;
    });
    if (!found) return sendHtml(reply, invitationNotFoundPage(lang), plainPageCsp(null, "'none'"), 404);
    const session = extra.session ?? null;
    const merchantName = session ? await deps.invitations.merchantName(session.merchantId) : '';
    const html = invitationPage({
      lang, token, apiUrl: deps.publicUrl, agency: found.agency, mode: found.row.mode, scopes: found.scopes, status: found.status,
      signedIn: session ? { email: session.email, role: session.role, csrfToken: session.csrfToken, merchantName } : null,
      error: extra.error, acceptedBy: extra.acceptedBy, email: extra.email,
    });
    return sendHtml(reply, html, plainPageCsp(themeSource({ merchant: found.agency, mode: found.row.mode }), "'none'"), status);
  }

  return async function routes(app: FastifyInstance): Promise<void> {
    await registerHostedRateLimit(app);
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 8192 }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    app.get('/agency-invitations/assets/invitation.css', { schema: { hide: true } }, async (_request, reply) =>
      reply.header('content-type', 'text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(INVITATION_CSS));

    app.get<{ Params: Static<typeof Params>; Querystring: Static<typeof Query> }>(
      '/agency-invitations/:token',
      { schema: { hide: true, params: Params, querystring: Query }, config: hostedRateLimit(deps.perMinute) },
      async (request, reply) => render(reply, pageLang(request.query.lang), request.params.token, { session: await signedIn(request) }),
    );

    app.post<{ Params: Static<typeof Params>; Querystring: Static<typeof Query>; Body: Static<typeof Form> }>(
      '/agency-invitations/:token',
      { schema: { hide: true, params: Params, querystring: Query, body: Form }, config: hostedRateLimit(deps.perMinute) },
      async (request, reply) => {
        // The page's own form; a program accepts through the API with its key, and is told so in the API's shape.
        if (!String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
          throw new AppError('VALIDATION_ERROR', 'This is the invitation page\'s form; a program accepts with POST /api/v1/agency-invitations/{token}/accept and its secret key', { field: 'body' });
        }
        const lang = pageLang(request.query.lang);
        const { token } = request.params;
        const form = request.body ?? {};
        let session = await signedIn(request);
        if (form.onboard !== undefined) {
          try {
            // On this page's own origin (the form's CSP allows 'self' only, redirects included).
            const form = new URL(await deps.onboarding.sessionForInvitation(token));
            return reply.redirect(`${form.pathname}?lang=${lang}`, 303);
          } catch (err) {
            if (!(err instanceof AppError)) throw err;
            if (err.code === 'NOT_FOUND') return sendHtml(reply, invitationNotFoundPage(lang), plainPageCsp(null, "'none'"), 404);
            return render(reply, lang, token, { session, error: err.code }, err.status);
          }
        }
        try {
          if (session && form.csrfToken !== undefined) {
            if (form.csrfToken !== session.csrfToken) throw new AppError('CSRF_TOKEN_INVALID', 'The form is out of date');
          } else {
            // Signing in here is the back-office's sign-in: its counts, lockout and two-factor; the same session.
            const user = await deps.users.signIn({ email: form.email ?? '', password: form.password ?? '', code: form.code || undefined });
            const opened = await deps.sessions.open(user.id);
            reply.header('set-cookie', sessionCookie(opened.token, secure));
            session = await deps.sessions.resolve(opened.token);
            if (!session) throw new AppError('UNAUTHORIZED', 'The session did not open');
          }
          const mandate = await deps.invitations.accept(token, userPrincipal(session));
          return render(reply, lang, token, { session, acceptedBy: mandate.merchantName ?? mandate.merchantId }, 201);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          if (err.code === 'NOT_FOUND') return sendHtml(reply, invitationNotFoundPage(lang), plainPageCsp(null, "'none'"), 404);
          return render(reply, lang, token, { session, error: err.code, email: form.email }, err.status);
        }
      },
    );
  };
}
