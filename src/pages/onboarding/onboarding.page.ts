// The hosted onboarding form of a platform's future seller, in the hosted pages' one layout with the platform's
// branding: a plain HTML form (no script), each field labelled, errors listed at the top and beside their field.
import { esc } from '../../http/html.js';
import { fillText } from '../../i18n/index.js';
import type { Lang } from '../../shared/lang.js';
import type { Merchant } from '../../modules/merchants/merchants.table.js';
import { displayName } from '../../modules/merchants/branding.js';
import type { FieldError } from '../../shared/errors.js';
import type { EnrollmentStatus, SessionStatus } from '../../modules/platforms/platforms.table.js';
import { hostedPage, type Brand } from '../hosted/layout.js';
import { ONBOARDING_TEXT } from './onboarding.messages.js';

export const ONBOARDING_CSS = `
.onboarding { max-width: 620px; margin: 0 auto; }
.onboarding h1 { font-size: 24px; margin: 0 0 8px; }
.onboarding .intro { color: var(--muted); margin: 0 0 16px; }
.onboarding fieldset { border: 1px solid var(--line); border-radius: 10px; margin: 0 0 16px; padding: 12px 14px 2px; min-width: 0; }
.onboarding legend { font-weight: 650; padding: 0 6px; }
.onboarding input[type=text], .onboarding input[type=date], .onboarding select { box-sizing: border-box; width: 100%; height: 44px; padding: 0 12px; font: inherit; color: var(--fg); background: var(--panel); border: 1px solid #6b7280; border-radius: 8px; }
.onboarding input:focus-visible, .onboarding select:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.onboarding [aria-invalid=true] { border-color: var(--error); border-width: 2px; }
.onboarding .error { color: var(--error); font-size: 14px; margin: 4px 0 0; }
.onboarding .summary { border: 2px solid var(--error); border-radius: 10px; padding: 10px 14px; margin: 0 0 16px; }
.onboarding .summary a { color: var(--error); }
.onboarding .notice { border: 1px solid var(--line); border-left: 4px solid var(--warn-fg); border-radius: 10px; padding: 10px 14px; margin: 0 0 16px; }
.onboarding .notice h2 { font-size: 17px; margin: 0 0 6px; }
.onboarding .lang { text-align: right; margin: 0 0 8px; font-size: 14px; }
.onboarding a:not(.button) { color: var(--link); }
.onboarding .row { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
@media (max-width: 480px) { .onboarding .row { grid-template-columns: 1fr; gap: 0; } }
`;

/** The form's fields by input name, with the service's name of the field they carry. */
export const FORM_FIELDS = {
  legalName: 'legalName', registrationNumber: 'registrationNumber', line1: 'address.line1', line2: 'address.line2',
  postalCode: 'address.postalCode', city: 'address.city', country: 'address.country', firstName: 'representative.firstName',
  lastName: 'representative.lastName', birthDate: 'representative.birthDate', iban: 'iban', currency: 'currency',
} as const;

export type FormName = keyof typeof FORM_FIELDS;
export type FormValues = Partial<Record<FormName, string>>;

export function brandOf(platform: Merchant, mode: string): Brand {
  return { merchant: platform, mode };
}

function errorText(lang: Lang, field: FieldError): string {
  const t = ONBOARDING_TEXT[lang].fieldErrors;
  if (field.message === 'is required') return t.required;
  if (field.message.startsWith('must be at most')) return t.tooLong;
  if (field.field === 'address.country') return t.country;
  if (field.field === 'representative.birthDate') return t.birthDate;
  if (field.field === 'currency') return t.currency;
  if (field.field === 'iban') return t.iban;
  return t.required;
}

export interface FormPage {
  lang: Lang;
  platform: Merchant;
  mode: string;
  action: string;
  /** The other language's address of the same page. */
  otherLanguageUrl: string;
  values: FormValues;
  errors: FieldError[];
  /** Set when the form corrects a case: the reasons given. */
  correction?: string[];
  businessName?: string | null;
}

export function formPage(p: FormPage): string {
  const t = ONBOARDING_TEXT[p.lang];
  const platform = displayName(p.platform);
  const errorOf = new Map<string, string>();
  for (const e of p.errors) {
    const name = (Object.keys(FORM_FIELDS) as FormName[]).find((k) => FORM_FIELDS[k] === e.field);
    if (name && !errorOf.has(name)) errorOf.set(name, errorText(p.lang, e));
  }
  const input = (name: FormName, label: string, options: { type?: string; autocomplete?: string; optional?: boolean; hint?: string; max?: number; attrs?: string } = {}) => {
    const error = errorOf.get(name);
    const described = [options.hint ? `${name}-hint` : '', error ? `${name}-error` : ''].filter(Boolean).join(' ');
    return `<div class="field"><label class="label" for="${name}">${esc(label)}</label>
<input type="${options.type ?? 'text'}" id="${name}" name="${name}" value="${esc(name === 'iban' ? '' : p.values[name] ?? '')}"${options.optional ? '' : ' required aria-required="true"'}${options.autocomplete ? ` autocomplete="${options.autocomplete}"` : ''}${options.max ? ` maxlength="${options.max}"` : ''}${error ? ' aria-invalid="true"' : ''}${described ? ` aria-describedby="${described}"` : ''}${options.attrs ?? ''}>
${options.hint ? `<p class="hint" id="${name}-hint">${esc(options.hint)}</p>` : ''}${error ? `<p class="error" id="${name}-error">${esc(error)}</p>` : ''}</div>`;
  };
  const currency = p.values.currency === 'XPF' ? 'XPF' : 'EUR';
  const summary = errorOf.size > 0
    ? `<div class="summary" role="alert" tabindex="-1" id="error-summary"><p>${esc(fillText(t.errorsTitle, { count: String(errorOf.size) }))}</p><ul>${[...errorOf].map(([name, text]) => `<li><a href="#${name}">${esc(text)}</a></li>`).join('')}</ul></div>`
    : '';
  const correction = p.correction
    ? `<section class="notice" aria-labelledby="correction-title"><h2 id="correction-title">${esc(t.correctionTitle)}</h2><ul>${p.correction.map((r) => `<li>${esc(r)}</li>`).join('')}</ul><p>${esc(t.correctionIntro)}</p></section>`
    : '';
  const body = `<main class="panel onboarding">
<p class="lang"><a href="${esc(p.otherLanguageUrl)}" lang="${p.lang === 'fr' ? 'en' : 'fr'}" aria-label="${esc(t.otherLanguageName)}">${esc(t.otherLanguage)}</a></p>
<h1>${esc(fillText(t.title, { platform }))}</h1>
<p class="intro">${esc(fillText(t.intro, { platform }))}</p>
${summary}${correction}
<form method="post" action="${esc(p.action)}" novalidate>
<fieldset><legend>${esc(t.business)}</legend>
${input('legalName', t.legalName, { autocomplete: 'organization', max: 200 })}
${input('registrationNumber', t.registrationNumber, { max: 50 })}
</fieldset>
<fieldset><legend>${esc(t.address)}</legend>
${input('line1', t.line1, { autocomplete: 'address-line1', max: 200 })}
${input('line2', t.line2, { autocomplete: 'address-line2', optional: true, max: 200 })}
<div class="row">${input('postalCode', t.postalCode, { autocomplete: 'postal-code', max: 20 })}${input('city', t.city, { autocomplete: 'address-level2', max: 100 })}</div>
${input('country', t.country, { autocomplete: 'country', max: 2 })}
</fieldset>
<fieldset><legend>${esc(t.representative)}</legend>
<div class="row">${input('firstName', t.firstName, { autocomplete: 'given-name', max: 100 })}${input('lastName', t.lastName, { autocomplete: 'family-name', max: 100 })}</div>
${input('birthDate', t.birthDate, { type: 'date', autocomplete: 'bday' })}
</fieldset>
<fieldset><legend>${esc(t.bank)}</legend>
${input('iban', t.iban, { autocomplete: 'off', hint: t.ibanHint, max: 64, attrs: ' spellcheck="false" autocapitalize="characters"' })}
<div class="field"><label class="label" for="currency">${esc(t.currency)}</label>
<select id="currency" name="currency"><option value="EUR"${currency === 'EUR' ? ' selected' : ''}>EUR</option><option value="XPF"${currency === 'XPF' ? ' selected' : ''}>XPF</option></select></div>
</fieldset>
<button type="submit" class="pay">${esc(t.submit)}</button>
</form></main>`;
  return hostedPage({ lang: p.lang, title: fillText(t.title, { platform }), brand: brandOf(p.platform, p.mode), body, stylesheets: ['/onboarding/assets/onboarding.css'] });
}

export function donePage(input: { lang: Lang; platform: Merchant; mode: string; caseId: string; status: EnrollmentStatus; returnUrl: string }): string {
  const t = ONBOARDING_TEXT[input.lang];
  const platform = displayName(input.platform);
  const text = input.status === 'APPROVED' ? t.doneApproved
    : input.status === 'REFUSED' ? t.doneRefused
      : input.status === 'CORRECTION_REQUESTED' ? fillText(t.doneCorrection, { platform }) : fillText(t.doneReview, { platform });
  const ok = input.status !== 'REFUSED';
  const body = `<main class="panel result onboarding">
<div class="icon ${ok ? 'ok' : 'ko'}" aria-hidden="true">${ok ? '✓' : '!'}</div><h1>${esc(t.doneTitle)}</h1>
<p role="status">${esc(text)}</p><p class="muted">${esc(fillText(t.caseRef, { caseId: input.caseId }))}</p>
<div class="actions"><a class="button" href="${esc(input.returnUrl)}">${esc(fillText(t.back, { platform }))}</a></div></main>`;
  return hostedPage({ lang: input.lang, title: t.doneTitle, brand: brandOf(input.platform, input.mode), body, stylesheets: ['/onboarding/assets/onboarding.css'] });
}

export function closedPage(input: { lang: Lang; platform: Merchant; mode: string; status: SessionStatus; refreshUrl: string | null }): string {
  const t = ONBOARDING_TEXT[input.lang];
  const platform = displayName(input.platform);
  const action = input.refreshUrl
    ? `<div class="actions"><a class="button" href="${esc(input.refreshUrl)}">${esc(t.refresh)}</a></div>`
    : `<p>${esc(fillText(t.askPlatform, { platform }))}</p>`;
  const body = `<main class="panel result onboarding"><div class="icon ko" aria-hidden="true">!</div>
<h1>${esc(t.closedTitle)}</h1><p>${esc(t.closed[input.status])}</p>${action}</main>`;
  return hostedPage({ lang: input.lang, title: t.closedTitle, brand: brandOf(input.platform, input.mode), body, stylesheets: ['/onboarding/assets/onboarding.css'] });
}

export function unknownPage(lang: Lang): string {
  const t = ONBOARDING_TEXT[lang];
  return hostedPage({ lang, title: t.notFoundTitle, brand: null, body: `<main class="panel result onboarding"><h1>${esc(t.notFoundTitle)}</h1><p>${esc(t.notFound)}</p></main>`, stylesheets: ['/onboarding/assets/onboarding.css'] });
}
