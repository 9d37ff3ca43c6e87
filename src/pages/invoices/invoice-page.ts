// The hosted invoice page (/invoices/{token}): the invoice as the customer received it, its PDF, and a card payment
// of what is due through the hosted checkout (the same secure fields). No script: a link to the checkout page. The
// hosted pages' layout: the merchant's header, the test banner.
import { esc } from '../../http/html.js';
import { catalog } from '../../i18n/index.js';
import { displayName } from '../../modules/merchants/branding.js';
import type { Merchant } from '../../modules/merchants/merchants.table.js';
import type { InvoiceLine, InvoiceRow, TaxLine } from '../../modules/invoices/invoices.table.js';
import { remaining } from '../../modules/invoices/issue.js';
import { money, percent } from '../format.js';
import type { DocLang } from './invoice-pdf.js';
import { hostedPage, type Brand } from '../hosted/layout.js';

const TEXT = { fr: catalog.fr.invoicePage, en: catalog.en.invoicePage };

export function invoicePage(input: { invoice: InvoiceRow; merchant: Merchant; checkoutUrl: string | null; pdfUrl: string; lang: DocLang }): string {
  const { invoice, merchant, lang } = input;
  const t = TEXT[lang];
  const amount = (v: number) => esc(money(v, invoice.currency, lang));
  const lines = (JSON.parse(invoice.lines) as InvoiceLine[]).map((l) =>
    `<tr><td>${esc(l.description)}</td><td class="n">${l.quantity}</td><td class="n">${amount(l.quantity * l.unitPrice)}</td></tr>`).join('');
  const taxes = (JSON.parse(invoice.taxes) as TaxLine[]).filter((x) => x.amount > 0)
    .map((x) => `<tr><td colspan="2">${t.tax} ${percent(x.rate, lang)}</td><td class="n">${amount(x.amount)}</td></tr>`).join('');
  const due = remaining(invoice);
  const dueDate = invoice.due_date ? new Date(invoice.due_date).toLocaleDateString(lang === 'fr' ? 'fr-FR' : 'en-GB', { timeZone: 'UTC', dateStyle: 'long' }) : '';
  const action = invoice.status === 'credited'
    ? `<p role="status">${t.credited}</p>`
    : due === 0
      ? `<p role="status">${t.settled}</p>`
      : input.checkoutUrl ? `<a class="button" id="pay-invoice" href="${esc(input.checkoutUrl)}">${t.pay} · ${amount(due)}</a>` : '';
  const body = `<main class="panel doc">
<p class="muted">${esc(merchant.legal_name ?? displayName(merchant))}</p>
<h1>${t.title} ${esc(invoice.number)}</h1>
${dueDate ? `<p>${t.due} ${esc(dueDate)}</p>` : ''}
<table><tbody>${lines}${taxes}
<tr class="total"><td colspan="2">${t.total}</td><td class="n">${amount(invoice.total)}</td></tr>
${invoice.amount_paid > 0 ? `<tr><td colspan="2">${t.paid}</td><td class="n">${amount(invoice.amount_paid)}</td></tr>` : ''}
<tr class="total"><td colspan="2">${t.remaining}</td><td class="n" id="remaining">${amount(due)}</td></tr>
</tbody></table>
${action}
<p><a href="${esc(input.pdfUrl)}">${t.pdf}</a></p>
</main>`;
  return hostedPage({ lang, title: `${t.title} ${invoice.number} · ${displayName(merchant)}`, brand: invoiceBrand(input), body });
}

/** The header's facts of an invoice: its merchant and mode. */
export function invoiceBrand(input: { invoice: InvoiceRow; merchant: Merchant }): Brand {
  return { merchant: input.merchant, mode: input.invoice.mode };
}
