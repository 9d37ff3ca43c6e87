// What a mail job says, composed when it is sent (outside any transaction) from the current rows: the payment
// receipt with its PDF (the success page's generator), the card-link invitation with its URL, and an invoice sent
// with its page's URL and its PDF. Texts in
// French and English. A subject that no longer warrants the mail (a card link cancelled or used meanwhile, a
// payment no longer paid) gives null: the job ends `skipped`.
import type { Database } from '../../db/database.js';
import { catalog, fillText } from '../../i18n/index.js';
import { esc } from '../../http/html.js';
import { displayName } from '../../modules/merchants/branding.js';
import { receiptFacts } from '../../modules/checkout/receipt-facts.js';
import type { DocumentPdfs } from '../pdf/documents.js';
import { invoiceJob, receiptJob } from '../pdf/jobs.js';
import { remaining } from '../../modules/invoices/issue.js';
import { money } from '../format.js';
import type { Clock } from '../../shared/clock.js';
import type { MailJobRow } from '../../mail/mail.table.js';
import { isPaid } from '../../modules/payments/payment-status.js';
import type { OutgoingMail } from '../../mail/mailer.js';
import { SETUP_LINK_HOURS } from '../../modules/users/users.service.js';

type Lang = 'fr' | 'en';

const TEXT = { fr: catalog.fr.mail, en: catalog.en.mail };

const fill = fillText;

/** Plain text to HTML: escaped, paragraphs, the one URL as a link. */
function html(text: string, url?: string): string {
  const body = text.split('\n\n').map((p) => `<p>${esc(p).replace(/\n/g, '<br>')}</p>`).join('\n');
  return `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5">${url ? body.replace(esc(url), `<a href="${esc(url)}">${esc(url)}</a>`) : body}</body></html>`;
}

export interface ComposeDeps {
  db: Database;
  clock: Clock;
  publicUrl: string;
  /** MOTU_TIMEZONE: receipts of a merchant without its own time zone. */
  timezone: string;
  /** The set-up link of a back-office user's invitation (the link's key never leaves the users module). */
  setupUrl: (userId: string, nonce: string) => string;
  /** Draws the attachments on worker threads, and keeps them as the downloads are (the same PDFs). */
  pdfs: DocumentPdfs;
}

export async function composeMail(deps: ComposeDeps, job: MailJobRow): Promise<OutgoingMail | null> {
  const lang: Lang = job.locale === 'en' ? 'en' : 'fr';
  if (job.kind === 'invoice') return invoiceMail(deps, job, lang);
  if (job.kind === 'invitation') return invitationMail(deps, job, lang);
  return job.kind === 'receipt' ? receiptMail(deps, job, lang) : cardLinkMail(deps, job, lang);
}

async function receiptMail({ db, timezone, pdfs }: ComposeDeps, job: MailJobRow, lang: Lang): Promise<OutgoingMail | null> {
  const payment = await db.kysely.selectFrom('payments').selectAll().where('id', '=', job.subject_id).executeTakeFirst();
  if (!payment || !payment.session_id || !isPaid(payment.status)) return null;
  const session = await db.kysely.selectFrom('payment_sessions').selectAll().where('id', '=', payment.session_id).executeTakeFirstOrThrow();
  const merchant = await db.kysely.selectFrom('merchants').selectAll().where('id', '=', payment.merchant_id).executeTakeFirstOrThrow();
  const store = payment.store_id ? (await db.kysely.selectFrom('stores').selectAll().where('id', '=', payment.store_id).executeTakeFirst()) ?? null : null;
  const pdf = await pdfs.pdf(receiptJob({ session, payment, merchant, store }, await receiptFacts(db, payment, merchant, timezone), lang), payment.id);
  const t = TEXT[lang];
  const values = { merchant: displayName(merchant), amount: money(payment.amount, payment.currency, lang), reference: payment.reference };
  const text = fill(t.receiptBody, values);
  return {
    to: job.recipient,
    subject: fill(t.receiptSubject, values),
    text,
    html: html(text),
    attachments: [{ filename: `${t.receiptFile}-${payment.reference}.pdf`, content: pdf, contentType: 'application/pdf' }],
  };
}

async function cardLinkMail({ db, clock, publicUrl }: ComposeDeps, job: MailJobRow, lang: Lang): Promise<OutgoingMail | null> {
  const link = await db.kysely.selectFrom('card_links').selectAll().where('id', '=', job.subject_id).executeTakeFirst();
  if (!link || link.cancelled_at) return null;
  const session = await db.kysely.selectFrom('payment_sessions').select(['status', 'expires_at']).where('id', '=', link.session_id).executeTakeFirstOrThrow();
  if (session.status !== 'open' || session.expires_at <= clock.now().toISOString()) return null;
  const merchant = await db.kysely.selectFrom('merchants').selectAll().where('id', '=', link.merchant_id).executeTakeFirstOrThrow();
  const url = `${publicUrl}/wallet/${link.session_id}`;
  const until = new Date(link.expires_at).toLocaleString(lang === 'fr' ? 'fr-FR' : 'en-GB', { timeZone: 'UTC', dateStyle: 'long', timeStyle: 'short' }) + ' UTC';
  const t = TEXT[lang];
  const values = { merchant: displayName(merchant), url, until };
  const text = fill(t.linkBody, values);
  return { to: job.recipient, subject: fill(t.linkSubject, values), text, html: html(text, url) };
}

async function invoiceMail({ db, publicUrl, pdfs }: ComposeDeps, job: MailJobRow, lang: Lang): Promise<OutgoingMail | null> {
  const invoice = await db.kysely.selectFrom('invoices').selectAll().where('id', '=', job.subject_id).executeTakeFirst();
  // Paid or credited meanwhile: nothing to ask for any more.
  if (!invoice || !invoice.page_token || remaining(invoice) === 0 || invoice.status === 'credited') return null;
  const merchant = await db.kysely.selectFrom('merchants').selectAll().where('id', '=', invoice.merchant_id).executeTakeFirstOrThrow();
  const customer = await db.kysely.selectFrom('customers').select(['name', 'email']).where('id', '=', invoice.customer_id).executeTakeFirst();
  const pdf = await pdfs.pdf(invoiceJob(invoice, { merchant, customerName: customer?.name ?? null, customerEmail: customer?.email ?? null }, lang), invoice.id);
  const url = `${publicUrl}/invoices/${invoice.page_token}${lang === 'en' ? '?lang=en' : ''}`;
  const due = invoice.due_date ? new Date(invoice.due_date).toLocaleDateString(lang === 'fr' ? 'fr-FR' : 'en-GB', { timeZone: 'UTC', dateStyle: 'long' }) : '-';
  const t = TEXT[lang];
  const values = { merchant: merchant.legal_name ?? displayName(merchant), number: invoice.number ?? '', amount: money(remaining(invoice), invoice.currency, lang), due, url };
  const text = fill(t.invoiceBody, values);
  return {
    to: job.recipient, subject: fill(t.invoiceSubject, values), text, html: html(text, url),
    attachments: [{ filename: `${invoice.number}.pdf`, content: pdf, contentType: 'application/pdf' }],
  };
}

async function invitationMail({ db, clock, setupUrl }: ComposeDeps, job: MailJobRow, lang: Lang): Promise<OutgoingMail | null> {
  const [userId, nonce] = job.subject_id.split(':');
  const user = await db.kysely.selectFrom('users').selectAll().where('id', '=', userId ?? '').executeTakeFirst();
  // Used, replaced by a newer invitation, expired, or the user removed meanwhile: the link would not work.
  if (!user || !nonce || user.setup_nonce !== nonce || user.removed_at || !user.setup_expires_at || user.setup_expires_at <= clock.now().toISOString()) return null;
  const merchant = await db.kysely.selectFrom('merchants').selectAll().where('id', '=', user.merchant_id).executeTakeFirstOrThrow();
  const url = setupUrl(user.id, nonce);
  const t = TEXT[lang];
  const values = { merchant: displayName(merchant), url, hours: String(SETUP_LINK_HOURS) };
  const text = fill(t.invitationBody, values);
  return { to: job.recipient, subject: fill(t.invitationSubject, values), text, html: html(text, url) };
}
