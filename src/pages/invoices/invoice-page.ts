// The hosted invoice page (/invoices/{token}): the invoice as the customer received it, its PDF, and a card payment
// of what is due through the hosted checkout (the same secure fields). No script: a link to the checkout page.
import { FAVICON_LINK } from '../../http/favicon.js';
import { esc } from '../../http/html.js';
import { catalog } from '../../i18n/index.js';
import { displayName } from '../../modules/merchants/branding.js';
import type { Merchant } from '../../modules/merchants/merchants.table.js';
import type { InvoiceLine, InvoiceRow, TaxLine } from '../../modules/invoices/invoices.table.js';
import { remaining } from '../../modules/invoices/issue.js';
import { money, percent } from '../format.js';
import type { DocLang } from './invoice-pdf.js';

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
      : input.checkoutUrl ? `<a class="pay" href="${esc(input.checkoutUrl)}">${t.pay} · ${amount(due)}</a>` : '';
  return `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t.title} ${esc(invoice.number)} · ${esc(displayName(merchant))}</title>${FAVICON_LINK}
<style>
body{font-family:system-ui,sans-serif;margin:0;background:#f3f4f6;color:#111827}
main{max-width:36rem;margin:2rem auto;background:#fff;padding:2rem;border-radius:.75rem}
h1{font-size:1.5rem;margin:0 0 .25rem}table{width:100%;border-collapse:collapse;margin:1rem 0}
td{padding:.4rem 0;border-bottom:1px solid #e5e7eb}.n{text-align:right}.total td{font-weight:700}
.pay{display:block;text-align:center;background:#1d4ed8;color:#fff;padding:.9rem;border-radius:.5rem;text-decoration:none;font-weight:600;margin:1rem 0}
.test{background:#fef3c7;color:#92400e;padding:.5rem;border-radius:.25rem}
</style></head>
<body><main>
${invoice.mode === 'test' ? `<p class="test">${t.test}</p>` : ''}
<p>${esc(merchant.legal_name ?? displayName(merchant))}</p>
<h1>${t.title} ${esc(invoice.number)}</h1>
${dueDate ? `<p>${t.due} ${esc(dueDate)}</p>` : ''}
<table><tbody>${lines}${taxes}
<tr class="total"><td colspan="2">${t.total}</td><td class="n">${amount(invoice.total)}</td></tr>
${invoice.amount_paid > 0 ? `<tr><td colspan="2">${t.paid}</td><td class="n">${amount(invoice.amount_paid)}</td></tr>` : ''}
<tr class="total"><td colspan="2">${t.remaining}</td><td class="n" id="remaining">${amount(due)}</td></tr>
</tbody></table>
${action}
<p><a href="${esc(input.pdfUrl)}">${t.pdf}</a></p>
</main></body></html>`;
}
