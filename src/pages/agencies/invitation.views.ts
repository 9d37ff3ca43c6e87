// The hosted page of an agency's invitation, in the hosted pages' one layout under the agency's branding: which agency
// asks, what it may do (each scope in words), and how the client accepts (signed in to the back-office as an owner,
// in this page; or with its secret key through the API). Forms without script: the page works everywhere.
import { esc } from '../../http/html.js';
import type { Lang } from '../../shared/lang.js';
import { displayName } from '../../modules/merchants/branding.js';
import type { Merchant } from '../../modules/merchants/merchants.table.js';
import { SCOPE_WORDS, type Scope } from '../../modules/agencies/scopes.js';
import { hostedPage, type Brand } from '../hosted/layout.js';

export const INVITATION_CSS = `.scopes { margin: 0 0 16px; padding-left: 20px; } .scopes li { margin: 4px 0; }
.accept input[type=password], .accept input[type=text] { width: calc(100% - 4px); margin: 0 2px; height: 44px; padding: 0 12px; font: inherit;
  color: var(--fg); background: var(--panel); border: 1px solid #6b7280; border-radius: 8px; box-sizing: border-box; }
.accept input[type=email] { border-color: #6b7280; box-sizing: border-box; }
.panel + .panel { margin-top: 16px; } h2 { font-size: 17px; margin: 0 0 10px; }
.key pre { white-space: pre-wrap; word-break: break-all; font-size: 13px; background: var(--bg); padding: 10px; border-radius: 8px; }
.signed { margin: 0 0 12px; }
`;

const TEXT = {
  en: {
    title: (agency: string) => `${agency} asks to manage your account`,
    intro: (agency: string) => `${agency} is an agency. If you accept, it may do the following on your Motu account, with its own key, until you change or revoke its mandate:`,
    mode: { test: 'This invitation is for your test environment.', live: 'This invitation is for your live environment.' },
    ownerTitle: 'Accept as an owner of your account',
    ownerHint: 'Sign in with your back-office account; only an owner may accept.',
    email: 'Email', password: 'Password', code: 'Two-factor code (if enabled)',
    signInAccept: 'Sign in and accept', accept: 'Accept', signedAs: (email: string, merchant: string) => `Signed in as ${email}, for ${merchant}.`,
    notOwner: 'Only an owner of the account may accept: ask an owner of your team to open this page.',
    newTitle: 'My business has no Motu account yet',
    newText: (agency: string) => `Open your account with the form below: once Motu approves it, your account is open and ${agency} gets the permissions above. You will then get access to your back-office from Motu.`,
    newStart: 'Open my account',
    keyTitle: 'Or accept with your secret key',
    keyText: 'From your server, with a secret key of your account:',
    acceptedTitle: 'Mandate given',
    accepted: (agency: string, merchant: string) => `${agency} now manages ${merchant} with the permissions above. You can change or revoke its mandate at any time (GET /api/v1/agency-mandates).`,
    states: {
      accepted: 'This invitation has been accepted already.', cancelled: 'The agency cancelled this invitation.',
      expired: 'This invitation has expired: ask the agency for a new one.',
    },
    notFoundTitle: 'Invitation not found', notFound: 'This link is not valid, or no longer.',
    errors: {
      INVALID_CREDENTIALS: 'The email or the password is wrong.', TWO_FACTOR_REQUIRED: 'Enter the code of your authenticator app, or a recovery code.',
      INVALID_TWO_FACTOR_CODE: 'This code is not valid.', ACCOUNT_LOCKED: 'Too many failed attempts: try again later.',
      PERMISSION_DENIED: 'Only an owner of the account may accept.', AGENCY_OWN_INVITATION: 'An agency cannot accept its own invitation.',
      ALREADY_EXISTS: 'This agency already has a mandate on your account.', CSRF_TOKEN_INVALID: 'Your session changed: reload the page.',
      INVITATION_EXPIRED: 'This invitation has expired: ask the agency for a new one.', INVITATION_NOT_PENDING: 'This invitation is no longer open.',
      ONBOARDING_CASE_REFUSED: 'Your application to open an account was refused.', ONBOARDING_CASE_NOT_CORRECTABLE: 'Your application is being reviewed: you will hear from Motu.',
      other: 'This did not work: try again.',
    } as Record<string, string>,
  },
  fr: {
    title: (agency: string) => `${agency} demande à gérer votre compte`,
    intro: (agency: string) => `${agency} est une agence. Si vous acceptez, elle pourra faire ceci sur votre compte Motu, avec sa propre clé, jusqu'à ce que vous modifiiez ou révoquiez son mandat :`,
    mode: { test: 'Cette invitation concerne votre environnement de test.', live: 'Cette invitation concerne votre environnement de production.' },
    ownerTitle: 'Accepter en tant que propriétaire du compte',
    ownerHint: 'Connectez-vous avec votre compte de back-office ; seul un propriétaire peut accepter.',
    email: 'E-mail', password: 'Mot de passe', code: 'Code de double authentification (si activée)',
    signInAccept: 'Se connecter et accepter', accept: 'Accepter', signedAs: (email: string, merchant: string) => `Connecté en tant que ${email}, pour ${merchant}.`,
    notOwner: 'Seul un propriétaire du compte peut accepter : demandez à un propriétaire de votre équipe d\'ouvrir cette page.',
    newTitle: "Mon entreprise n'a pas encore de compte Motu",
    newText: (agency: string) => `Ouvrez votre compte avec le formulaire : une fois votre dossier approuvé par Motu, votre compte est ouvert et ${agency} reçoit les permissions ci-dessus. Motu vous donnera ensuite l'accès à votre back-office.`,
    newStart: 'Ouvrir mon compte',
    keyTitle: 'Ou acceptez avec votre clé secrète',
    keyText: 'Depuis votre serveur, avec une clé secrète de votre compte :',
    acceptedTitle: 'Mandat donné',
    accepted: (agency: string, merchant: string) => `${agency} gère désormais ${merchant} avec les permissions ci-dessus. Vous pouvez modifier ou révoquer son mandat à tout moment (GET /api/v1/agency-mandates).`,
    states: {
      accepted: 'Cette invitation a déjà été acceptée.', cancelled: "L'agence a annulé cette invitation.",
      expired: "Cette invitation a expiré : demandez-en une nouvelle à l'agence.",
    },
    notFoundTitle: 'Invitation introuvable', notFound: "Ce lien n'est pas valide, ou ne l'est plus.",
    errors: {
      INVALID_CREDENTIALS: "L'e-mail ou le mot de passe est incorrect.", TWO_FACTOR_REQUIRED: "Saisissez le code de votre application d'authentification, ou un code de secours.",
      INVALID_TWO_FACTOR_CODE: "Ce code n'est pas valide.", ACCOUNT_LOCKED: 'Trop de tentatives échouées : réessayez plus tard.',
      PERMISSION_DENIED: 'Seul un propriétaire du compte peut accepter.', AGENCY_OWN_INVITATION: 'Une agence ne peut pas accepter sa propre invitation.',
      ALREADY_EXISTS: 'Cette agence a déjà un mandat sur votre compte.', CSRF_TOKEN_INVALID: 'Votre session a changé : rechargez la page.',
      INVITATION_EXPIRED: "Cette invitation a expiré : demandez-en une nouvelle à l'agence.", INVITATION_NOT_PENDING: "Cette invitation n'est plus ouverte.",
      ONBOARDING_CASE_REFUSED: "Votre demande d'ouverture de compte a été refusée.", ONBOARDING_CASE_NOT_CORRECTABLE: 'Votre dossier est en cours d\'examen : Motu reviendra vers vous.',
      other: "Cela n'a pas fonctionné : réessayez.",
    } as Record<string, string>,
  },
};

export interface InvitationPageInput {
  lang: Lang;
  token: string;
  apiUrl: string;
  agency: Merchant;
  mode: 'test' | 'live';
  scopes: readonly Scope[];
  status: 'pending' | 'accepted' | 'cancelled' | 'expired';
  /** The back-office user the browser is signed in as, if any. */
  signedIn: { email: string; role: string; csrfToken: string; merchantName: string } | null;
  /** An error code to say above the form. */
  error?: string | null;
  /** The mandate just given: the page says so. */
  acceptedBy?: string | null;
  email?: string;
}

export function invitationPage(input: InvitationPageInput): string {
  const t = TEXT[input.lang];
  const agency = displayName(input.agency);
  const brand: Brand = { merchant: input.agency, mode: input.mode };
  const action = `/agency-invitations/${esc(input.token)}?lang=${input.lang}`;
  const scopes = `<ul class="scopes">${input.scopes.map((s) => `<li>${esc(SCOPE_WORDS[input.lang][s])} <span class="muted">(${esc(s)})</span></li>`).join('')}</ul>`;
  const head = `<h1>${esc(t.title(agency))}</h1><p>${esc(t.intro(agency))}</p>${scopes}<p class="hint">${esc(t.mode[input.mode])}</p>`;
  const onboardError = input.error?.startsWith('ONBOARDING_') ? input.error : null;
  const acceptError = onboardError ? null : input.error;
  const alert = `<p class="alert" role="alert" id="accept-error">${acceptError ? esc(t.errors[acceptError] ?? t.errors.other!) : ''}</p>`;
  let body: string;
  if (input.acceptedBy) {
    body = `<main class="panel result"><div class="icon ok" aria-hidden="true">✓</div><h1>${esc(t.acceptedTitle)}</h1>
<p>${esc(t.accepted(agency, input.acceptedBy))}</p>${scopes}</main>`;
  } else if (input.status !== 'pending') {
    body = `<main class="panel">${head}<p class="alert" role="status">${esc(t.states[input.status])}</p></main>`;
  } else {
    const owner = input.signedIn
      ? `<p class="signed">${esc(t.signedAs(input.signedIn.email, input.signedIn.merchantName))}</p>${input.signedIn.role === 'owner'
        ? `<form method="post" action="${action}" class="accept">${alert}<input type="hidden" name="csrfToken" value="${esc(input.signedIn.csrfToken)}"><button type="submit" class="pay">${esc(t.accept)}</button></form>`
        : `<p class="alert" role="status">${esc(t.notOwner)}</p>`}`
      : `<p class="hint">${esc(t.ownerHint)}</p><form method="post" action="${action}" class="accept">${alert}
<div class="field"><label class="label" for="email">${esc(t.email)}</label><input id="email" name="email" type="email" autocomplete="username" required value="${esc(input.email ?? '')}"></div>
<div class="field"><label class="label" for="password">${esc(t.password)}</label><input id="password" name="password" type="password" autocomplete="current-password" required></div>
<div class="field"><label class="label" for="code">${esc(t.code)}</label><input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code"></div>
<button type="submit" class="pay">${esc(t.signInAccept)}</button></form>`;
    body = `<main>
<section class="panel" aria-labelledby="invitation-title">${head.replace('<h1>', '<h1 id="invitation-title">')}</section>
<section class="panel" aria-labelledby="owner-title"><h2 id="owner-title">${esc(t.ownerTitle)}</h2>${owner}</section>
<section class="panel" aria-labelledby="new-title"><h2 id="new-title">${esc(t.newTitle)}</h2><p>${esc(t.newText(agency))}</p>
<form method="post" action="${action}"><input type="hidden" name="onboard" value="1">${onboardError ? `<p class="alert" role="alert" id="onboard-error">${esc(t.errors[onboardError]!)}</p>` : ''}<button type="submit" class="pay">${esc(t.newStart)}</button></form></section>
<section class="panel key" aria-labelledby="key-title"><h2 id="key-title">${esc(t.keyTitle)}</h2><p>${esc(t.keyText)}</p>
<pre><code>curl -X POST ${esc(input.apiUrl)}/api/v1/agency-invitations/${esc(input.token)}/accept -u sk_${input.mode}_…:</code></pre></section>
</main>`;
  }
  return hostedPage({ lang: input.lang, title: t.title(agency), brand, body, stylesheets: ['/agency-invitations/assets/invitation.css'] });
}

export function invitationNotFoundPage(lang: Lang): string {
  const t = TEXT[lang];
  return hostedPage({ lang, title: t.notFoundTitle, brand: null, body: `<main class="panel result"><h1>${esc(t.notFoundTitle)}</h1><p>${esc(t.notFound)}</p></main>` });
}
