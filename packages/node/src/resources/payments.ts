// Taking payments: sessions (hosted page or web SDK), payment links, merchant-initiated payments on a saved card,
// capture, cancel, refunds.
import type { RequestOptions } from '../client.js';
import type { ListPromise } from '../pagination.js';
import type { ListItem, QueryParams, RequestBody, ResponseBody } from '../types.js';
import { Resource } from './resource.js';

export type PaymentSessionCreateParams = RequestBody<'/api/v1/payments/sessions', 'post'>;
export type PaymentSessionCreated = ResponseBody<'/api/v1/payments/sessions', 'post'>;
export type PaymentSession = ResponseBody<'/api/v1/payments/sessions/{id}', 'get'>;
export type PaymentLinkCreateParams = RequestBody<'/api/v1/payments/links', 'post'>;
export type PaymentLink = ResponseBody<'/api/v1/payments/links', 'post'>;
export type PaymentCreateParams = RequestBody<'/api/v1/payments', 'post'>;
export type Payment = ResponseBody<'/api/v1/payments/{id}', 'get'>;
export type PaymentListParams = QueryParams<'/api/v1/payments', 'get'>;
export type PaymentListItem = ListItem<'/api/v1/payments', 'get'>;
export type PaymentCaptureParams = RequestBody<'/api/v1/payments/{id}/capture', 'post'>;
export type PaymentCancelParams = RequestBody<'/api/v1/payments/{id}/cancel', 'post'>;
export type RefundCreateParams = RequestBody<'/api/v1/payments/{id}/refund', 'post'>;
export type Refund = ResponseBody<'/api/v1/payments/{id}/refund', 'post'>;
export type RefundListItem = ListItem<'/api/v1/payments/{id}/refunds', 'get'>;

export class PaymentSessions extends Resource {
  /** A payment session: its `checkoutUrl` for the hosted page, its `sessionId` for the web SDK. */
  create(params: PaymentSessionCreateParams, options?: RequestOptions): Promise<PaymentSessionCreated> {
    return this.client.request('post', '/api/v1/payments/sessions', { body: params }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<PaymentSession> {
    return this.client.request('get', '/api/v1/payments/sessions/{id}', { path: { id } }, options);
  }
}

export class PaymentLinks extends Resource {
  /** A shareable payment link (no redirect or notification URL needed). */
  create(params: PaymentLinkCreateParams, options?: RequestOptions): Promise<PaymentLink> {
    return this.client.request('post', '/api/v1/payments/links', { body: params }, options);
  }
}

export class Payments extends Resource {
  /** A merchant-initiated payment on a saved card (`paymentMethodId`). */
  create(params: PaymentCreateParams, options?: RequestOptions): Promise<ResponseBody<'/api/v1/payments', 'post'>> {
    return this.client.request('post', '/api/v1/payments', { body: params }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<Payment> {
    return this.client.request('get', '/api/v1/payments/{id}', { path: { id } }, options);
  }

  list(params: PaymentListParams = {}, options?: RequestOptions): ListPromise<PaymentListItem> {
    return this.paged('get', '/api/v1/payments', { query: params }, options);
  }

  /** Captures an authorized (MANUAL) payment, in full or for `amount`. */
  capture(id: string, params: PaymentCaptureParams = {}, options?: RequestOptions): Promise<ResponseBody<'/api/v1/payments/{id}/capture', 'post'>> {
    return this.client.request('post', '/api/v1/payments/{id}/capture', { path: { id }, body: params }, options);
  }

  /** Cancels an authorization not captured, or a pending payment. */
  cancel(id: string, params: PaymentCancelParams = {}, options?: RequestOptions): Promise<ResponseBody<'/api/v1/payments/{id}/cancel', 'post'>> {
    return this.client.request('post', '/api/v1/payments/{id}/cancel', { path: { id }, body: params }, options);
  }
}

export class Refunds extends Resource {
  /** Refunds a captured payment, in full or for an amount. */
  create(paymentId: string, params: RefundCreateParams = {}, options?: RequestOptions): Promise<Refund> {
    return this.client.request('post', '/api/v1/payments/{id}/refund', { path: { id: paymentId }, body: params }, options);
  }

  /** The refunds of one payment. */
  list(paymentId: string, options?: RequestOptions): Promise<ResponseBody<'/api/v1/payments/{id}/refunds', 'get'>> {
    return this.client.request('get', '/api/v1/payments/{id}/refunds', { path: { id: paymentId } }, options);
  }
}
