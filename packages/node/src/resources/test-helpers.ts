// Test mode only (a sk_test_ key): make time pass, and make happen what a bank or a cardholder would.
import type { RequestOptions } from '../client.js';
import type { ListPromise } from '../pagination.js';
import type { ListItem, QueryParams, RequestBody, ResponseBody } from '../types.js';
import { Resource } from './resource.js';

export class TestClocks extends Resource {
  /** A clock frozen at `frozenTime`; customers created on it (`testClockId`) live on its time. */
  create(params: RequestBody<'/api/v1/test-helpers/test-clocks', 'post'>, options?: RequestOptions): Promise<ResponseBody<'/api/v1/test-helpers/test-clocks', 'post'>> {
    return this.client.request('post', '/api/v1/test-helpers/test-clocks', { body: params }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<ResponseBody<'/api/v1/test-helpers/test-clocks/{id}', 'get'>> {
    return this.client.request('get', '/api/v1/test-helpers/test-clocks/{id}', { path: { id } }, options);
  }

  list(params: QueryParams<'/api/v1/test-helpers/test-clocks', 'get'> = {}, options?: RequestOptions): ListPromise<ListItem<'/api/v1/test-helpers/test-clocks', 'get'>> {
    return this.paged('get', '/api/v1/test-helpers/test-clocks', { query: params }, options);
  }

  /** Moves the clock forward; what falls due meanwhile (renewals, expiries) runs. */
  advance(id: string, params: RequestBody<'/api/v1/test-helpers/test-clocks/{id}/advance', 'post'>, options?: RequestOptions): Promise<ResponseBody<'/api/v1/test-helpers/test-clocks/{id}/advance', 'post'>> {
    return this.client.request('post', '/api/v1/test-helpers/test-clocks/{id}/advance', { path: { id }, body: params }, options);
  }
}

export class TestHelpers extends Resource {
  readonly testClocks = new TestClocks(this.client);

  /** Makes a saved card unusable, as the acquirer would report it. */
  invalidatePaymentMethod(id: string, params: RequestBody<'/api/v1/test-helpers/payment-methods/{id}/invalidate', 'post'>, options?: RequestOptions): Promise<ResponseBody<'/api/v1/test-helpers/payment-methods/{id}/invalidate', 'post'>> {
    return this.client.request('post', '/api/v1/test-helpers/payment-methods/{id}/invalidate', { path: { id }, body: params }, options);
  }

  /** Opens a dispute on a captured payment, as the cardholder's bank would. */
  disputePayment(id: string, params: RequestBody<'/api/v1/test-helpers/payments/{id}/dispute', 'post'> = {}, options?: RequestOptions): Promise<ResponseBody<'/api/v1/test-helpers/payments/{id}/dispute', 'post'>> {
    return this.client.request('post', '/api/v1/test-helpers/payments/{id}/dispute', { path: { id }, body: params }, options);
  }
}
