// Customers and their wallet: saved cards (payment methods), wallet sessions (the hosted wallet page or the web SDK
// saving a card) and card links (a link, by email or shared, that asks the customer for a card).
import type { RequestOptions } from '../client.js';
import type { ListPromise } from '../pagination.js';
import type { ListItem, QueryParams, RequestBody, ResponseBody } from '../types.js';
import { Resource } from './resource.js';

export type CustomerCreateParams = RequestBody<'/api/v1/customers', 'post'>;
export type CustomerUpdateParams = RequestBody<'/api/v1/customers/{id}', 'patch'>;
export type CustomerListParams = QueryParams<'/api/v1/customers', 'get'>;
export type Customer = ResponseBody<'/api/v1/customers/{id}', 'get'>;
export type PaymentMethod = ResponseBody<'/api/v1/payment-methods/{id}', 'get'>;
export type PaymentMethodListParams = QueryParams<'/api/v1/customers/{id}/payment-methods', 'get'>;
export type WalletSessionCreateParams = RequestBody<'/api/v1/customers/{id}/sessions', 'post'>;
export type WalletSession = ResponseBody<'/api/v1/customers/{id}/sessions', 'post'>;
export type CardLinkCreateParams = RequestBody<'/api/v1/customers/{id}/card-links', 'post'>;
export type CardLink = ResponseBody<'/api/v1/card-links/{id}', 'get'>;

export class Customers extends Resource {
  create(params: CustomerCreateParams = {}, options?: RequestOptions): Promise<ResponseBody<'/api/v1/customers', 'post'>> {
    return this.client.request('post', '/api/v1/customers', { body: params }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<Customer> {
    return this.client.request('get', '/api/v1/customers/{id}', { path: { id } }, options);
  }

  /** Changes the given fields (null clears one); the answer lists what changed in `updatedFields`. */
  update(id: string, params: CustomerUpdateParams, options?: RequestOptions): Promise<ResponseBody<'/api/v1/customers/{id}', 'patch'>> {
    return this.client.request('patch', '/api/v1/customers/{id}', { path: { id }, body: params }, options);
  }

  /** Newest first; filter by `email` or `externalId`, or search with `q` (name, email or external id containing it). */
  list(params: CustomerListParams = {}, options?: RequestOptions): ListPromise<ListItem<'/api/v1/customers', 'get'>> {
    return this.paged('get', '/api/v1/customers', { query: params }, options);
  }
}

export class PaymentMethods extends Resource {
  /** A customer's saved cards. */
  list(customerId: string, params: PaymentMethodListParams = {}, options?: RequestOptions): ListPromise<ListItem<'/api/v1/customers/{id}/payment-methods', 'get'>> {
    return this.paged('get', '/api/v1/customers/{id}/payment-methods', { path: { id: customerId }, query: params }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<PaymentMethod> {
    return this.client.request('get', '/api/v1/payment-methods/{id}', { path: { id } }, options);
  }

  /** Removes a saved card (`payment_method.removed`, reason `deleted`). */
  delete(id: string, options?: RequestOptions): Promise<ResponseBody<'/api/v1/payment-methods/{id}', 'delete'>> {
    return this.client.request('delete', '/api/v1/payment-methods/{id}', { path: { id } }, options);
  }
}

export class WalletSessions extends Resource {
  /** A wallet session: `redirectUrl` for the hosted wallet page, `sessionId` for the web SDK (intent tokenization). */
  create(customerId: string, params: WalletSessionCreateParams, options?: RequestOptions): Promise<WalletSession> {
    return this.client.request('post', '/api/v1/customers/{id}/sessions', { path: { id: customerId }, body: params }, options);
  }
}

export class CardLinks extends Resource {
  /** A link asking the customer for a card, sent by email (`sendEmail`) or shared by you. */
  create(customerId: string, params: CardLinkCreateParams = {}, options?: RequestOptions): Promise<ResponseBody<'/api/v1/customers/{id}/card-links', 'post'>> {
    return this.client.request('post', '/api/v1/customers/{id}/card-links', { path: { id: customerId }, body: params }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<CardLink> {
    return this.client.request('get', '/api/v1/card-links/{id}', { path: { id } }, options);
  }

  cancel(id: string, options?: RequestOptions): Promise<ResponseBody<'/api/v1/card-links/{id}/cancel', 'post'>> {
    return this.client.request('post', '/api/v1/card-links/{id}/cancel', { path: { id } }, options);
  }
}
