// The wallet's use cases around saved cards: list, read, delete, and the test-mode helper that makes a card
// unusable at the acquirer. Also the SavedCards the hosted checkout offers for one-click payment.
import type { Acquirers } from '../../acquirer/acquirers.js';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import { paginate, type PageRequest } from '../../shared/pagination.js';
import { paymentMethodView, removePaymentMethod, type WalletOwner } from './payment-methods.js';
import type { PaymentMethodRow } from './wallet.table.js';
import { ownedBy } from '../merchants/scope.js';

/** The customer's saved cards as the hosted checkout offers them for one-click payment. */
export interface SavedCards {
  list(owner: WalletOwner, customerId: string): Promise<Array<{ id: string; brand: string; last4: string }>>;
  /** The acquirer card reference behind a payment method of this customer, or null. */
  cardRefOf(owner: WalletOwner, customerId: string, paymentMethodId: string): Promise<string | null>;
}

export class WalletService implements SavedCards {
  constructor(private readonly db: Database, private readonly clock: Clock, private readonly acquirers: Acquirers) {}

  async listForCustomer(owner: WalletOwner, customerId: string, page: PageRequest & { status?: 'active' | 'removed' | 'all' }) {
    const customer = await this.db.kysely.selectFrom('customers').select('id')
      .where('id', '=', customerId).where(ownedBy(owner)).executeTakeFirst();
    if (!customer) throw notFound('customer', customerId);
    let query = this.db.kysely.selectFrom('payment_methods').selectAll()
      .where(ownedBy(owner)).where('customer_id', '=', customerId);
    const status = page.status ?? 'active';
    if (status !== 'all') query = query.where('status', '=', status);
    const result = await paginate(query, page, (id) =>
      this.db.kysely.selectFrom('payment_methods').select('created_at')
        .where('id', '=', id).where(ownedBy(owner)).executeTakeFirst());
    return { data: result.data.map(paymentMethodView), hasMore: result.hasMore };
  }

  async get(owner: WalletOwner, id: string) {
    return paymentMethodView(await this.find(owner, id));
  }

  /** The merchant deletes a saved card: `payment_method.removed` with reason "deleted". */
  async delete(owner: WalletOwner, id: string) {
    const row = await this.find(owner, id);
    if (row.status !== 'active') throw new AppError('BUSINESS_RULE_VIOLATION', `Payment method ${id} was already removed`, { id, reason: row.removed_reason });
    const removed = await this.db.transaction((trx) => removePaymentMethod(trx, row, 'deleted', this.clock.now()));
    if (!removed) throw new AppError('BUSINESS_RULE_VIOLATION', `Payment method ${id} was already removed`, { id });
    return paymentMethodView(removed);
  }

  /**
   * Test mode only: the acquirer now reports the card disabled or unknown; the payment method is removed with
   * that reason. Lets an integration rehearse `payment_method.removed` (and the mandate revocation it causes).
   */
  async simulateUnusable(owner: WalletOwner, id: string, reason: 'disabled' | 'unknown_at_acquirer') {
    if (owner.mode !== 'test') throw new AppError('PERMISSION_DENIED', 'Test helpers need a test key (sk_test_…)');
    const row = await this.find(owner, id);
    if (row.status !== 'active') throw new AppError('BUSINESS_RULE_VIOLATION', `Payment method ${id} was already removed`, { id, reason: row.removed_reason });
    await this.acquirers.simulator.setCardState(row.acquirer_card_ref, reason === 'disabled' ? 'disabled' : 'unknown');
    const removed = await this.db.transaction((trx) => removePaymentMethod(trx, row, reason, this.clock.now()));
    if (!removed) throw new AppError('BUSINESS_RULE_VIOLATION', `Payment method ${id} was already removed`, { id });
    return paymentMethodView(removed);
  }

  /** An active payment method of this merchant and mode, with its acquirer reference (merchant-initiated charges). */
  async findActive(owner: WalletOwner, id: string): Promise<PaymentMethodRow | undefined> {
    return this.db.kysely.selectFrom('payment_methods').selectAll()
      .where('id', '=', id).where(ownedBy(owner))
      .where('status', '=', 'active').executeTakeFirst();
  }

  // ---- SavedCards (hosted checkout one-click) ----

  async list(owner: WalletOwner, customerId: string) {
    const rows = await this.db.kysely.selectFrom('payment_methods').select(['id', 'brand', 'network', 'last4', 'exp_month', 'exp_year'])
      .where(ownedBy(owner)).where('customer_id', '=', customerId)
      .where('status', '=', 'active').orderBy('created_at', 'desc').orderBy('id', 'desc').limit(20).execute();
    return rows.map((r) => ({ id: r.id, brand: r.brand, network: r.network, last4: r.last4, expMonth: r.exp_month, expYear: r.exp_year }));
  }

  async cardRefOf(owner: WalletOwner, customerId: string, paymentMethodId: string): Promise<string | null> {
    const row = await this.db.kysely.selectFrom('payment_methods').select('acquirer_card_ref')
      .where('id', '=', paymentMethodId).where(ownedBy(owner))
      .where('customer_id', '=', customerId).where('status', '=', 'active').executeTakeFirst();
    return row?.acquirer_card_ref ?? null;
  }

  private async find(owner: WalletOwner, id: string): Promise<PaymentMethodRow> {
    const row = await this.db.kysely.selectFrom('payment_methods').selectAll()
      .where('id', '=', id).where(ownedBy(owner)).executeTakeFirst();
    if (!row) throw notFound('payment method', id);
    return row;
  }
}
