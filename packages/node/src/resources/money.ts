// The merchant's money: balance and its ledger, bank accounts, payouts and their schedule, disputes.
import type { RequestOptions } from '../client.js';
import type { ListPromise } from '../pagination.js';
import type { ListItem, QueryParams, RequestBody, ResponseBody } from '../types.js';
import { Resource } from './resource.js';

export type Balance = ResponseBody<'/api/v1/balance', 'get'>;
export type BalanceTransaction = ResponseBody<'/api/v1/balance-transactions/{id}', 'get'>;
export type BankAccountCreateParams = RequestBody<'/api/v1/bank-accounts', 'post'>;
export type BankAccount = ResponseBody<'/api/v1/bank-accounts/{id}', 'get'>;
export type PayoutSchedule = ResponseBody<'/api/v1/payout-schedule', 'get'>;
export type PayoutScheduleUpdateParams = RequestBody<'/api/v1/payout-schedule', 'patch'>;
export type PayoutCreateParams = RequestBody<'/api/v1/payouts', 'post'>;
export type Payout = ResponseBody<'/api/v1/payouts/{id}', 'get'>;
export type Dispute = ResponseBody<'/api/v1/disputes/{id}', 'get'>;
export type DisputeListParams = QueryParams<'/api/v1/disputes', 'get'>;
export type DisputeEvidenceParams = RequestBody<'/api/v1/disputes/{id}/evidence', 'post'>;

export class BalanceResource extends Resource {
  /** Available and pending amounts, per currency. */
  retrieve(options?: RequestOptions): Promise<Balance> {
    return this.client.request('get', '/api/v1/balance', {}, options);
  }
}

export class BalanceTransactions extends Resource {
  list(params: QueryParams<'/api/v1/balance-transactions', 'get'> = {}, options?: RequestOptions): ListPromise<ListItem<'/api/v1/balance-transactions', 'get'>> {
    return this.paged('get', '/api/v1/balance-transactions', { query: params }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<BalanceTransaction> {
    return this.client.request('get', '/api/v1/balance-transactions/{id}', { path: { id } }, options);
  }
}

export class BankAccounts extends Resource {
  create(params: BankAccountCreateParams, options?: RequestOptions): Promise<ResponseBody<'/api/v1/bank-accounts', 'post'>> {
    return this.client.request('post', '/api/v1/bank-accounts', { body: params }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<BankAccount> {
    return this.client.request('get', '/api/v1/bank-accounts/{id}', { path: { id } }, options);
  }

  /** Makes the account the default of its currency (`{default: true}`). */
  update(id: string, params: RequestBody<'/api/v1/bank-accounts/{id}', 'patch'>, options?: RequestOptions): Promise<ResponseBody<'/api/v1/bank-accounts/{id}', 'patch'>> {
    return this.client.request('patch', '/api/v1/bank-accounts/{id}', { path: { id }, body: params }, options);
  }

  list(params: QueryParams<'/api/v1/bank-accounts', 'get'> = {}, options?: RequestOptions): ListPromise<ListItem<'/api/v1/bank-accounts', 'get'>> {
    return this.paged('get', '/api/v1/bank-accounts', { query: params }, options);
  }

  delete(id: string, options?: RequestOptions): Promise<ResponseBody<'/api/v1/bank-accounts/{id}', 'delete'>> {
    return this.client.request('delete', '/api/v1/bank-accounts/{id}', { path: { id } }, options);
  }
}

export class PayoutScheduleResource extends Resource {
  retrieve(options?: RequestOptions): Promise<PayoutSchedule> {
    return this.client.request('get', '/api/v1/payout-schedule', {}, options);
  }

  update(params: PayoutScheduleUpdateParams, options?: RequestOptions): Promise<ResponseBody<'/api/v1/payout-schedule', 'patch'>> {
    return this.client.request('patch', '/api/v1/payout-schedule', { body: params }, options);
  }
}

export class Payouts extends Resource {
  /** A manual payout of what is available (all of it, or `amount`) to a bank account. */
  create(params: PayoutCreateParams, options?: RequestOptions): Promise<ResponseBody<'/api/v1/payouts', 'post'>> {
    return this.client.request('post', '/api/v1/payouts', { body: params }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<Payout> {
    return this.client.request('get', '/api/v1/payouts/{id}', { path: { id } }, options);
  }

  list(params: QueryParams<'/api/v1/payouts', 'get'> = {}, options?: RequestOptions): ListPromise<ListItem<'/api/v1/payouts', 'get'>> {
    return this.paged('get', '/api/v1/payouts', { query: params }, options);
  }

  /** The balance transactions a payout paid out. */
  listTransactions(id: string, params: QueryParams<'/api/v1/payouts/{id}/transactions', 'get'> = {}, options?: RequestOptions): ListPromise<ListItem<'/api/v1/payouts/{id}/transactions', 'get'>> {
    return this.paged('get', '/api/v1/payouts/{id}/transactions', { path: { id }, query: params }, options);
  }

  cancel(id: string, options?: RequestOptions): Promise<ResponseBody<'/api/v1/payouts/{id}/cancel', 'post'>> {
    return this.client.request('post', '/api/v1/payouts/{id}/cancel', { path: { id }, body: {} }, options);
  }
}

export class Disputes extends Resource {
  list(params: DisputeListParams = {}, options?: RequestOptions): ListPromise<ListItem<'/api/v1/disputes', 'get'>> {
    return this.paged('get', '/api/v1/disputes', { query: params }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<Dispute> {
    return this.client.request('get', '/api/v1/disputes/{id}', { path: { id } }, options);
  }

  /** Saves evidence; `submit: true` sends it to the bank (no change after). */
  submitEvidence(id: string, params: DisputeEvidenceParams, options?: RequestOptions): Promise<ResponseBody<'/api/v1/disputes/{id}/evidence', 'post'>> {
    return this.client.request('post', '/api/v1/disputes/{id}/evidence', { path: { id }, body: params }, options);
  }

  /** Accepts the dispute (the amount stays with the cardholder). */
  accept(id: string, options?: RequestOptions): Promise<ResponseBody<'/api/v1/disputes/{id}/accept', 'post'>> {
    return this.client.request('post', '/api/v1/disputes/{id}/accept', { path: { id }, body: {} }, options);
  }
}
