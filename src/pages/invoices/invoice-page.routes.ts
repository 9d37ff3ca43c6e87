// The hosted invoice page and its PDF, public by their unguessable token (what the merchant sends its customer).
// Rate-limited per client address; the PDF is drawn on a worker thread and kept once drawn (pages/pdf).
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { sendHtml } from '../../http/html.js';
import { hostedRateLimit, registerHostedRateLimit } from '../../http/hosted-rate-limit.js';
import type { InvoicesService } from '../../modules/invoices/invoices.service.js';
import { AppError } from '../../shared/errors.js';
import { invoiceBrand, invoicePage } from './invoice-page.js';
import { plainPageCsp, themeSource } from '../hosted/layout.js';
import type { DocLang } from './invoice-pdf.js';
import type { DocumentPdfs } from '../pdf/documents.js';
import { invoiceJob } from '../pdf/jobs.js';

const Params = Type.Object({ token: Type.String({ minLength: 1, maxLength: 64 }) });
const Query = Type.Object({ lang: Type.Optional(Type.Union([Type.Literal('fr'), Type.Literal('en')])) }, { additionalProperties: false });

export function invoicePageRoutes(service: InvoicesService, pdfs: DocumentPdfs, perMinute: number) {
  return async function routes(app: FastifyInstance): Promise<void> {
    await registerHostedRateLimit(app);
    const load = async (token: string) => {
      const found = await service.page(token);
      if (!found) throw new AppError('NOT_FOUND', 'Unknown invoice page');
      return found;
    };
    app.get<{ Params: Static<typeof Params>; Querystring: Static<typeof Query> }>(
      '/invoices/:token',
      { schema: { hide: true, params: Params, querystring: Query }, config: hostedRateLimit(perMinute) },
      async (request, reply) => {
        const { invoice, party, checkoutUrl } = await load(request.params.token);
        const lang: DocLang = request.query.lang ?? 'fr';
        const pdfUrl = `${service.pageUrl(request.params.token)}/pdf${lang === 'en' ? '?lang=en' : ''}`;
        const page = { invoice, merchant: party.merchant, checkoutUrl, pdfUrl, lang };
        return sendHtml(reply, invoicePage(page), plainPageCsp(themeSource(invoiceBrand(page)), "'none'"));
      },
    );
    app.get<{ Params: Static<typeof Params>; Querystring: Static<typeof Query> }>(
      '/invoices/:token/pdf',
      { schema: { hide: true, params: Params, querystring: Query }, config: hostedRateLimit(perMinute) },
      async (request, reply) => {
        const { invoice, party } = await load(request.params.token);
        const pdf = await pdfs.pdf(invoiceJob(invoice, party, request.query.lang ?? 'fr'), invoice.status === 'draft' ? null : invoice.id);
        return reply.type('application/pdf').header('content-disposition', `inline; filename="${invoice.number}.pdf"`).header('cache-control', 'no-store').send(pdf);
      },
    );
  };
}
