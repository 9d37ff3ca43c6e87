// The languages of the customer's pages, receipts and mails: French and English. A session's languageCode may be
// any language tag; French (fr, fr-FR, fr-PF…) gets French, every other language English, the one most customers
// of another language read. No tag at all keeps the service's default, French.
export type Lang = 'fr' | 'en';

export function pageLang(code: string | null | undefined): Lang {
  const tag = (code ?? '').trim().toLowerCase();
  if (tag === '') return 'fr';
  return /^fr(?:[-_]|$)/.test(tag) ? 'fr' : 'en';
}
