// Reading payments: one by id, or a filtered list, newest first. Another merchant's or the other mode's
// payments do not exist for the caller (404).
import type { Acquirers } from '../../acquirer/acquirers.js';
import type { Database } from '../../db/database.js';
import type { Owner } from '../merchants/principal.js';
import { notFound } from '../../shared/errors.js';
import { paginate } from '../../shared/pagination.js';
import { refundView } from '../refunds/refunds.views.js';
import { settlementOf } from '../payment-transitions/payment-events.js';
import type { PaymentRow } from './payments.table.js';
import { paymentView, storeRef, type StoreRef } from './payments.views.js';
import type { PaymentListFilter } from '../sessions/sessions.schemas.js';
import { ownedBy } from '../merchants/scope.js';

// A key attached to a store sees only that store's payments (docs/reliability.md, Isolation).

export class PaymentsService {
  constructor(
    private readonly db: Database,
    /** For the detail view's attempts (optional so the list works without an acquirer). */
    private readonly acquirers?: Acquirers,
  ) {}

  private mine(owner: Owner) {
    return this.db.kysely.selectFrom('payments').selectAll().where(ownedBy(owner, { store: true }));
  }

  async get(owner: Owner, id: string) {
    const row = await this.mine(owner).where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('payment', id);
    const [view] = await this.views([row]);
    if (!this.acquirers) return view;
    // The detail adds what the list leaves out: the acquirer's attempts, the refunds, the fees.
    const authorizations = row.mode === 'live' && !this.acquirers.liveConfigured()
      ? []
      : await this.acquirers.forMode(row.mode).listAuthorizations(row.mode, row.id);
    const attempts = authorizations.map((a) => ({
      id: a.id, status: a.status, amount: a.amount, currency: a.currency, refusalCode: a.refusalCode,
      cardBrand: a.card.brand, cardLast4: a.card.last4, network: a.card.network, createdAt: a.createdAt,
    }));
    const refunds = await this.db.kysely.selectFrom('refunds').selectAll().where('payment_id', '=', row.id).orderBy('created_at').orderBy('id').execute();
    const settlement = await settlementOf(this.db.kysely, row, attempts.length);
    return { ...view, attempts, refunds: refunds.map(refundView), settlement };
  }

  async list(owner: Owner, filter: PaymentListFilter) {
    let q = this.mine(owner);
    if (filter.status) q = q.where('status', '=', filter.status);
    if (filter.customerId) q = q.where('customer_id', '=', filter.customerId);
    if (filter.createdFrom) q = q.where('created_at', '>=', new Date(filter.createdFrom).toISOString());
    if (filter.createdTo) q = q.where('created_at', '<', new Date(filter.createdTo).toISOString());
    if (filter.reference) {
      const ref = filter.reference;
      q = q.where((eb) => eb.or([eb('reference', '=', ref), eb('order_reference', '=', ref)]));
    }
    if (filter.storeId) {
      const ref = filter.storeId;
      q = q.where('store_id', 'in', (eb) =>
        eb
          .selectFrom('stores')
          .select('stores.id')
          .where('stores.merchant_id', '=', owner.merchantId)
          .where((s) => s.or([s('stores.id', '=', ref), s('stores.code', '=', ref)])),
      );
    }
    const page = await paginate(q, filter, (id) => this.mine(owner).where('id', '=', id).executeTakeFirst());
    return { data: await this.views(page.data), hasMore: page.hasMore };
  }

  /** Views of several payments with two extra queries in all (their stores and sessions), not two per row. */
  private async views(rows: PaymentRow[]) {
    const storeIds = [...new Set(rows.map((r) => r.store_id).filter((id): id is string => id !== null))];
    const sessionIds = [...new Set(rows.map((r) => r.session_id).filter((id): id is string => id !== null))];
    const stores = storeIds.length
      ? await this.db.kysely.selectFrom('stores').select(['id', 'code', 'name']).where('id', 'in', storeIds).execute()
      : [];
    const sessions = sessionIds.length
      ? await this.db.kysely.selectFrom('payment_sessions').select(['id', 'expires_at']).where('id', 'in', sessionIds).execute()
      : [];
    const storeById = new Map<string, StoreRef>(stores.map((s) => [s.id, storeRef(s)]));
    const sessionById = new Map(sessions.map((s) => [s.id, s]));
    return rows.map((row) =>
      paymentView(row, row.store_id ? storeById.get(row.store_id) ?? null : null, row.session_id ? sessionById.get(row.session_id) : undefined),
    );
  }
}
