// Recurring payments and invoicing: subscriptions and their due dates, invoices, credit notes, billing settings.
import type { RawResponse, RequestOptions } from '../client.js';
import type { ListPromise } from '../pagination.js';
import type { ListItem, QueryParams, RequestBody, ResponseBody } from '../types.js';
import { Resource } from './resource.js';

export type SubscriptionCreateParams = RequestBody<'/api/v1/subscriptions', 'post'>;
export type SubscriptionUpdateParams = RequestBody<'/api/v1/subscriptions/{id}', 'patch'>;
export type Subscription = ResponseBody<'/api/v1/subscriptions/{id}', 'get'>;
export type InvoiceCreateParams = RequestBody<'/api/v1/billing/invoices', 'post'>;
export type InvoiceUpdateParams = RequestBody<'/api/v1/billing/invoices/{id}', 'patch'>;
export type Invoice = ResponseBody<'/api/v1/billing/invoices/{id}', 'get'>;
export type InvoicePaymentParams = RequestBody<'/api/v1/billing/invoices/{id}/payments', 'post'>;
export type CreditNoteCreateParams = RequestBody<'/api/v1/billing/invoices/{id}/credit-notes', 'post'>;
export type PdfLanguage = QueryParams<'/api/v1/billing/invoices/{id}/pdf', 'get'>;

/** A PDF's bytes. */
async function bytes(res: RawResponse): Promise<Uint8Array> {
  return new Uint8Array(await res.response.arrayBuffer());
}

export class Subscriptions extends Resource {
  create(params: SubscriptionCreateParams, options?: RequestOptions): Promise<ResponseBody<'/api/v1/subscriptions', 'post'>> {
    return this.client.request('post', '/api/v1/subscriptions', { body: params }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<Subscription> {
    return this.client.request('get', '/api/v1/subscriptions/{id}', { path: { id } }, options);
  }

  update(id: string, params: SubscriptionUpdateParams, options?: RequestOptions): Promise<ResponseBody<'/api/v1/subscriptions/{id}', 'patch'>> {
    return this.client.request('patch', '/api/v1/subscriptions/{id}', { path: { id }, body: params }, options);
  }

  list(params: QueryParams<'/api/v1/subscriptions', 'get'> = {}, options?: RequestOptions): ListPromise<ListItem<'/api/v1/subscriptions', 'get'>> {
    return this.paged('get', '/api/v1/subscriptions', { query: params }, options);
  }

  /** Cancels now, or at the end of the period (`atPeriodEnd: true`). */
  cancel(id: string, params: RequestBody<'/api/v1/subscriptions/{id}/cancel', 'post'> = {}, options?: RequestOptions): Promise<ResponseBody<'/api/v1/subscriptions/{id}/cancel', 'post'>> {
    return this.client.request('post', '/api/v1/subscriptions/{id}/cancel', { path: { id }, body: params }, options);
  }

  /** Charges a past-due subscription again now. */
  retry(id: string, options?: RequestOptions): Promise<ResponseBody<'/api/v1/subscriptions/{id}/retry', 'post'>> {
    return this.client.request('post', '/api/v1/subscriptions/{id}/retry', { path: { id }, body: {} }, options);
  }

  listDueDates(id: string, params: QueryParams<'/api/v1/subscriptions/{id}/due-dates', 'get'> = {}, options?: RequestOptions): ListPromise<ListItem<'/api/v1/subscriptions/{id}/due-dates', 'get'>> {
    return this.paged('get', '/api/v1/subscriptions/{id}/due-dates', { path: { id }, query: params }, options);
  }
}

export class Invoices extends Resource {
  /** A draft invoice. */
  create(params: InvoiceCreateParams, options?: RequestOptions): Promise<ResponseBody<'/api/v1/billing/invoices', 'post'>> {
    return this.client.request('post', '/api/v1/billing/invoices', { body: params }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<Invoice> {
    return this.client.request('get', '/api/v1/billing/invoices/{id}', { path: { id } }, options);
  }

  /** Changes a draft. */
  update(id: string, params: InvoiceUpdateParams, options?: RequestOptions): Promise<ResponseBody<'/api/v1/billing/invoices/{id}', 'patch'>> {
    return this.client.request('patch', '/api/v1/billing/invoices/{id}', { path: { id }, body: params }, options);
  }

  list(params: QueryParams<'/api/v1/billing/invoices', 'get'> = {}, options?: RequestOptions): ListPromise<ListItem<'/api/v1/billing/invoices', 'get'>> {
    return this.paged('get', '/api/v1/billing/invoices', { query: params }, options);
  }

  /** Deletes a draft. */
  async delete(id: string, options?: RequestOptions): Promise<void> {
    await this.client.request('delete', '/api/v1/billing/invoices/{id}', { path: { id } }, options);
  }

  /** Issues the draft: its final number, content frozen. */
  finalize(id: string, options?: RequestOptions): Promise<ResponseBody<'/api/v1/billing/invoices/{id}/finalize', 'post'>> {
    return this.client.request('post', '/api/v1/billing/invoices/{id}/finalize', { path: { id }, body: {} }, options);
  }

  /** Sends the invoice by email with its payment link. */
  send(id: string, options?: RequestOptions): Promise<ResponseBody<'/api/v1/billing/invoices/{id}/send', 'post'>> {
    return this.client.request('post', '/api/v1/billing/invoices/{id}/send', { path: { id }, body: {} }, options);
  }

  /** Records a payment received outside Motu (a transfer, cash, a cheque). */
  recordPayment(id: string, params: InvoicePaymentParams, options?: RequestOptions): Promise<ResponseBody<'/api/v1/billing/invoices/{id}/payments', 'post'>> {
    return this.client.request('post', '/api/v1/billing/invoices/{id}/payments', { path: { id }, body: params }, options);
  }

  markUncollectible(id: string, options?: RequestOptions): Promise<ResponseBody<'/api/v1/billing/invoices/{id}/mark-uncollectible', 'post'>> {
    return this.client.request('post', '/api/v1/billing/invoices/{id}/mark-uncollectible', { path: { id }, body: {} }, options);
  }

  /** A credit note on an issued invoice (in full, or for `amount`; `refund` gives the money back on the card). */
  createCreditNote(id: string, params: CreditNoteCreateParams, options?: RequestOptions): Promise<ResponseBody<'/api/v1/billing/invoices/{id}/credit-notes', 'post'>> {
    return this.client.request('post', '/api/v1/billing/invoices/{id}/credit-notes', { path: { id }, body: params }, options);
  }

  /** The invoice as a PDF (bytes). */
  async pdf(id: string, params: PdfLanguage = {}, options?: RequestOptions): Promise<Uint8Array> {
    return bytes(await this.client.raw('get', '/api/v1/billing/invoices/{id}/pdf', { path: { id }, query: params }, options, 'application/pdf'));
  }
}

export type CreditNote = ResponseBody<'/api/v1/billing/credit-notes/{id}', 'get'>;

export class CreditNotes extends Resource {
  retrieve(id: string, options?: RequestOptions): Promise<CreditNote> {
    return this.client.request('get', '/api/v1/billing/credit-notes/{id}', { path: { id } }, options);
  }

  /** Newest first; `invoiceId` keeps an invoice's. */
  list(params: QueryParams<'/api/v1/billing/credit-notes', 'get'> = {}, options?: RequestOptions): ListPromise<ListItem<'/api/v1/billing/credit-notes', 'get'>> {
    return this.paged('get', '/api/v1/billing/credit-notes', { query: params }, options);
  }

  /** The credit note as a PDF (bytes). */
  async pdf(id: string, params: QueryParams<'/api/v1/billing/credit-notes/{id}/pdf', 'get'> = {}, options?: RequestOptions): Promise<Uint8Array> {
    return bytes(await this.client.raw('get', '/api/v1/billing/credit-notes/{id}/pdf', { path: { id }, query: params }, options, 'application/pdf'));
  }
}

export class BillingSettings extends Resource {
  /** The merchant's invoicing settings (activation, numbering, legal mentions). */
  retrieve(options?: RequestOptions): Promise<ResponseBody<'/api/v1/billing/settings', 'get'>> {
    return this.client.request('get', '/api/v1/billing/settings', {}, options);
  }
}
