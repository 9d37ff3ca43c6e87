// Reading payments: one by id, or a filtered list, newest first. Another merchant's or the other mode's
// payments do not exist for the caller (404).
import type { AuthorizationView } from '../../acquirer/acquirer.js';
import type { Acquirers } from '../../acquirer/acquirers.js';
import { compiledQuery, readAll, readsInOneMessage } from '../../db/compiled.js';
import { readTogether } from '../../db/together.js';
import { ReferenceCache } from '../../db/reference-cache.js';
import type { Database } from '../../db/database.js';
import type { Owner } from '../merchants/principal.js';
import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { DB } from '../../db/schema.js';
import { invalidField, notFound } from '../../shared/errors.js';
import { allRows, paginate } from '../../shared/pagination.js';
import { refundView } from '../refunds/refunds.views.js';
import type { RefundRow } from '../refunds/refunds.table.js';
import type { Captured } from './lifecycle.service.js';
import { cachedFeeTerms, settlementOf, type FeeTermsOf } from '../payment-transitions/payment-events.js';
import { distributionOf } from '../splits/split-payments.js';
import type { PaymentRow } from './payments.table.js';
import { paymentView, storeRef, type StoreRef } from './payments.views.js';
import { findOwnedPayment, ownedPaymentStatement } from './payments.repository.js';
import type { PaymentListFilter } from '../sessions/sessions.schemas.js';
import { ownedBy } from '../merchants/scope.js';
import { settlementBlock, type FeeContract } from './fees.js';

/** One way a lookup filter may match a payment (see PaymentsService.filtered). */
type Alternative = (eb: ExpressionBuilder<DB, 'payments'>) => Expression<SqlBool>;

// The detail's reads of one payment, compiled once (src/db/compiled.ts): a capture's answer is the detail.
const refundsOf = compiledQuery((db, p: { paymentId: string }) =>
  db.selectFrom('refunds').selectAll().where('payment_id', '=', p.paymentId).orderBy('created_at').orderBy('id'));
const sessionExpiry = compiledQuery((db, p: { id: string }) => db.selectFrom('payment_sessions').select(['id', 'expires_at']).where('id', '=', p.id));
/** The expiry of payment `paymentId`'s session, found through the payment's row, in one statement. */
const paymentSessionExpiry = compiledQuery((db, p: { paymentId: string }) => db.selectFrom('payment_sessions').select(['id', 'expires_at'])
  .where('id', '=', (eb) => eb.selectFrom('payments').select('payments.session_id').where('payments.id', '=', p.paymentId)));

/** Payments read per query by the CSV export. */
const EXPORT_BATCH = 1000;

/** One line of the payments CSV (GET /payments with Accept: text/csv). */
export interface PaymentExportRow {
  id: string;
  reference: string;
  orderReference: string | null;
  createdAt: string;
  status: string;
  amount: number;
  currency: string;
  amountEur: number;
  capturedAmount: number;
  refundedAmount: number;
  /** Motu's fees on the payment in its currency (the settlement block's mobupayCommission). */
  fees: number;
  /** capturedAmount − fees (the settlement block's netAmount). */
  net: number;
  customerEmail: string | null;
  cardBrand: string | null;
  cardLast4: string | null;
  storeCode: string | null;
}

// A key attached to a store sees only that store's payments (docs/reliability.md, Isolation).

export class PaymentsService {
  /** Contracts are reference rows: their fee terms read once per change (Database.referenceStamp), not on every detail. */
  private readonly feeTermsOf: FeeTermsOf;

  constructor(
    private readonly db: Database,
    /** For the detail view's attempts (optional so the list works without an acquirer). */
    private readonly acquirers?: Acquirers,
  ) {
    this.feeTermsOf = cachedFeeTerms(new ReferenceCache(db));
  }

  private scoped(owner: Owner, q: Kysely<DB> = this.db.kysely) {
    return q.selectFrom('payments').where(ownedBy(owner, { store: true }));
  }

  private mine(owner: Owner, q?: Kysely<DB>) {
    return this.scoped(owner, q).selectAll();
  }

  /** The operator's read (`motu payments get`): any merchant's payment, in either mode, as its merchant sees it. */
  async getByOperator(id: string) {
    const row = await this.db.kysely.selectFrom('payments').select(['merchant_id', 'mode']).where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('payment', id);
    return this.get({ merchantId: row.merchant_id, mode: row.mode }, id);
  }

  async get(owner: Owner, id: string) {
    return (await this.detail(owner, id)).payment;
  }

  /** The payment's detail, and the acquirer's attempts it lists as they came (the back-office timeline shows more of them). */
  async detail(owner: Owner, id: string) {
    // The payment's own rows, read together (readTogether: on SQLite the connection is taken once, not four times);
    // the acquirer's attempts after, without holding the connection: a live connector may read its contract, or ask
    // its acquirer about an attempt whose outcome it has not heard.
    const { row, view, refunds, terms, attemptsRead } = await readTogether(this.db, (q) => this.ownRows(q, owner, id));
    return this.completed(row, view, refunds, terms, attemptsRead);
  }

  /**
   * The detail of a payment its capture just wrote, from the rows the capture holds (PaymentLifecycleService.capture):
   * the payment's row as its transaction committed it, its session's expiry, and no refunds (none can exist while a
   * payment is in transit, and the capture's transaction added none: capturedRowIsWhole). The same object as `get`
   * gives for the payment at that commit; only the acquirer's attempts, unless the capture read them on its
   * transaction (an acquirer whose records are rows of this database), and a store's name, for a payment of a store,
   * are read, as `detail` reads them.
   */
  async capturedDetail(captured: Captured) {
    const { row, session, attempts } = captured;
    const [view] = await this.views([row], this.db.kysely, session ? [session] : []);
    const terms = await this.feeTermsOf(this.db.kysely, row.contract_id);
    return (await this.completed(row, view!, [], terms, attempts)).payment;
  }

  /** The detail from the payment's own rows: the acquirer's attempts (read here unless given), its refunds and fees. */
  private async completed(row: PaymentRow, view: ReturnType<typeof paymentView>, refunds: RefundRow[], terms: FeeContract, attemptsRead: AuthorizationView[] | undefined) {
    if (!this.acquirers) return { payment: view, authorizations: [] };
    // The detail adds what the list leaves out: the acquirer's attempts, the refunds, the fees.
    const authorizations = attemptsRead ?? (row.mode === 'live' && !this.acquirers.liveConfigured()
      ? []
      : await this.acquirers.forMode(row.mode).listAttempts(row.mode, row.id));
    const attempts = authorizations.map((a) => ({
      id: a.id, status: a.status, amount: a.amount, currency: a.currency, refusalCode: a.refusalCode,
      cardBrand: a.card.brand, cardLast4: a.card.last4, network: a.card.network, createdAt: a.createdAt,
    }));
    const settlement = await settlementOf(this.db.kysely, row, attempts.length, terms);
    const platformDistribution = await distributionOf(this.db.kysely, row, settlement.mobupayCommission);
    return { payment: { ...view, attempts, refunds: refunds.map(refundView), settlement, ...(platformDistribution ? { platformDistribution } : {}) }, authorizations };
  }

  /** The payment, its view, its refunds and its contract's fee terms, every read on `q`. */
  private async ownRows(q: Kysely<DB>, owner: Owner, id: string) {
    if (readsInOneMessage(q)) return this.ownRowsInOneMessage(q, owner, id);
    const row = await findOwnedPayment(q, owner, id);
    if (!row) throw notFound('payment', id);
    const [view] = await this.views([row], q);
    // None before a capture, and none a capture's answer has to find (captured_amount is 0 until then).
    const refunds = row.captured_amount === 0 ? [] : await refundsOf.execute(q, { paymentId: row.id });
    const terms = await this.feeTermsOf(q, row.contract_id);
    return { row, view: view!, refunds, terms, attemptsRead: undefined };
  }

  /**
   * ownRows on PostgreSQL: the payment, its session's expiry and its refunds in one round trip (readAll), the two
   * others found through the payment's id; what they read of a payment that is not the owner's is dropped. In test
   * mode the simulator's attempts too (their rows are in this database: Acquirer.attemptsStatement), as `attemptsRead`.
   */
  private async ownRowsInOneMessage(q: Kysely<DB>, owner: Owner, id: string) {
    // Test mode's acquirer is the simulator whatever the payment: its mode is the owner's (the statement reads the
    // attempts of that mode only).
    const attempts = owner.mode === 'test' ? this.acquirers?.forMode(owner.mode).attemptsStatement?.(q, owner.mode, id) : undefined;
    const [payments, sessions, refundRows, attemptRows] = await readAll(q, [
      ownedPaymentStatement(q, owner, id),
      paymentSessionExpiry.bind(q, { paymentId: id }),
      refundsOf.bind(q, { paymentId: id }),
      ...(attempts ? [attempts.statement] : []),
    ]);
    const row = payments[0];
    if (!row) throw notFound('payment', id);
    const [view] = await this.views([row], q, row.session_id !== null && sessions[0]?.id === row.session_id ? sessions : undefined);
    // None before a capture (captured_amount is 0 until then).
    const refunds = row.captured_amount === 0 ? [] : refundRows;
    const terms = await this.feeTermsOf(q, row.contract_id);
    return { row, view: view!, refunds, terms, attemptsRead: attempts && attemptRows ? attempts.answer(attemptRows) : undefined };
  }

  /**
   * The caller's payments matching `filter` (every filter of GET /payments but the page), in no order yet; the caller
   * selects (`selectAll('payments')`, or the CSV's columns).
   *
   * The filters that look payments up by a value (`q`, `reference`, `customerEmail`) each match one of a few
   * alternatives, each read from its own index. Written as `a = x OR b = x` in the list's query, both databases would
   * rather walk the whole list in its order (created_at, id) and test every row, a million of them for a payment that
   * is not there. So the first such filter drives the query: the ids its alternatives match (a UNION, each part on its
   * index) come first, `CROSS JOIN payments` (which SQLite keeps in that order), and only those rows are sorted. The
   * other filters are conditions on those rows.
   */
  private filtered(owner: Owner, filter: PaymentListFilter) {
    if (filter.amountMin !== undefined && filter.amountMax !== undefined && filter.amountMin > filter.amountMax) {
      throw invalidField('amountMin', 'is greater than amountMax');
    }
    const lookups: Alternative[][] = [];
    const search = filter.q?.trim();
    if (search) {
      lookups.push([
        (eb) => eb('payments.id', '=', search),
        (eb) => eb('payments.reference', '=', search),
        (eb) => eb('payments.order_reference', '=', search),
        // An email always holds an @: without one, the email's alternatives cannot match.
        ...(search.includes('@') ? this.emailIs(owner, search) : []),
      ]);
    }
    if (filter.reference) {
      const ref = filter.reference;
      lookups.push([(eb) => eb('payments.reference', '=', ref), (eb) => eb('payments.order_reference', '=', ref)]);
    }
    if (filter.customerEmail) lookups.push(this.emailIs(owner, filter.customerEmail));
    const [driver, ...others] = lookups;
    let q = driver ? this.matching(owner, driver) : this.scoped(owner);
    for (const alternatives of others) q = q.where((eb) => eb.or(alternatives.map((alternative) => alternative(eb))));
    if (filter.status) q = q.where('payments.status', '=', filter.status);
    if (filter.customerId) q = q.where('payments.customer_id', '=', filter.customerId);
    if (filter.createdFrom) q = q.where('payments.created_at', '>=', new Date(filter.createdFrom).toISOString());
    if (filter.createdTo) q = q.where('payments.created_at', '<', new Date(filter.createdTo).toISOString());
    if (filter.amountMin !== undefined) q = q.where('payments.amount', '>=', filter.amountMin);
    if (filter.amountMax !== undefined) q = q.where('payments.amount', '<=', filter.amountMax);
    if (filter.currency) q = q.where('payments.currency', '=', filter.currency);
    if (filter.cardLast4) q = q.where('payments.card_last4', '=', filter.cardLast4);
    if (filter.storeId) {
      const ref = filter.storeId;
      q = q.where('payments.store_id', 'in', (eb) =>
        eb
          .selectFrom('stores')
          .select('stores.id')
          .where('stores.merchant_id', '=', owner.merchantId)
          .where((s) => s.or([s('stores.id', '=', ref), s('stores.code', '=', ref)])),
      );
    }
    return q;
  }

  /** The caller's payments matching one of `alternatives`, driven by the ids they match (see `filtered`). */
  private matching(owner: Owner, alternatives: Alternative[]) {
    const parts = alternatives.map((alternative) => this.scoped(owner).select('payments.id as match_id').where(alternative));
    const ids = parts.slice(1).reduce((union, part) => union.union(part), parts[0]!);
    // The other filters, the page's keyset and its order name payments' columns only (`matches` has just match_id), so
    // the query reads as the plain one; the type says so.
    return this.db.kysely.selectFrom(ids.as('matches')).crossJoin('payments')
      .whereRef('payments.id', '=', 'matches.match_id')
      .where(ownedBy(owner, { alias: 'payments', store: true })) as unknown as ReturnType<PaymentsService['scoped']>;
  }

  /**
   * A payment's customer email is `email`: its own (the address given for it, or its customer's when it was made), or,
   * for a payment made without one (a saved card charged), its customer's. Case-insensitive (lower() on both sides of
   * the indexed expression; customers keep their lower-cased email_key).
   */
  private emailIs(owner: Owner, email: string): Alternative[] {
    return [
      (eb) => eb(sql`lower(${sql.ref('payments.email')})`, '=', sql`lower(${email})`),
      (eb) => eb.and([
        eb('payments.email', 'is', null),
        eb('payments.customer_id', 'in', eb.selectFrom('customers').select('customers.id')
          .where('customers.merchant_id', '=', owner.merchantId).where('customers.mode', '=', owner.mode)
          .where('customers.email_key', '=', email.toLowerCase())),
      ]),
    ];
  }

  async list(owner: Owner, filter: PaymentListFilter) {
    const page = await paginate(this.filtered(owner, filter).selectAll('payments'), filter, (id) => this.mine(owner).where('id', '=', id).executeTakeFirst());
    return { data: await this.views(page.data), hasMore: page.hasMore };
  }

  /**
   * Every payment matching `filter`, newest first, as the CSV export's rows, a batch at a time (keyset on created_at
   * and id: a million payments are a thousand queries, never all in memory).
   */
  async *exportBatches(owner: Owner, filter: PaymentListFilter): AsyncGenerator<PaymentExportRow[]> {
    const query = this.filtered(owner, filter).select([
      'payments.id', 'payments.reference', 'payments.order_reference', 'payments.created_at', 'payments.status', 'payments.amount',
      'payments.currency', 'payments.amount_eur_cents', 'payments.captured_amount', 'payments.refunded_amount', 'payments.contract_id',
      'payments.authorization_attempts', 'payments.settled', 'payments.email', 'payments.customer_id', 'payments.card_brand',
      'payments.card_last4', 'payments.store_id',
    ]);
    const contracts = new Map<string, FeeContract>();
    const stores = new Map<string, string>();
    for await (const rows of allRows(query, EXPORT_BATCH)) {
      const wanted = <T>(ids: (string | null)[], known: Map<string, T>) =>
        [...new Set(ids.filter((id): id is string => id !== null && !known.has(id)))];
      const newContracts = wanted(rows.map((r) => r.contract_id), contracts);
      if (newContracts.length) {
        const found = await this.db.kysely.selectFrom('contracts').select(['id', 'commission_rate', 'fixed_fee', 'authorization_fee', 'tax_rate'])
          .where('id', 'in', newContracts).execute();
        for (const c of found) contracts.set(c.id, c);
      }
      const newStores = wanted(rows.map((r) => r.store_id), stores);
      if (newStores.length) {
        const found = await this.db.kysely.selectFrom('stores').select(['id', 'code']).where('id', 'in', newStores).execute();
        for (const st of found) stores.set(st.id, st.code);
      }
      const customerIds = [...new Set(rows.filter((r) => r.email === null && r.customer_id !== null).map((r) => r.customer_id!))];
      const customerEmails = new Map(customerIds.length
        ? (await this.db.kysely.selectFrom('customers').select(['id', 'email']).where('id', 'in', customerIds).execute()).map((c) => [c.id, c.email])
        : []);
      yield rows.map((row) => {
        const contract = contracts.get(row.contract_id);
        const fees = contract
          ? settlementBlock({ currency: row.currency, capturedAmount: row.captured_amount, attempts: row.authorization_attempts, settled: row.settled === 1 }, contract).mobupayCommission
          : 0;
        return {
          id: row.id,
          reference: row.reference,
          orderReference: row.order_reference,
          createdAt: row.created_at,
          status: row.status,
          amount: row.amount,
          currency: row.currency,
          amountEur: row.amount_eur_cents,
          capturedAmount: row.captured_amount,
          refundedAmount: row.refunded_amount,
          fees,
          net: row.captured_amount - fees,
          customerEmail: row.email ?? (row.customer_id ? customerEmails.get(row.customer_id) ?? null : null),
          cardBrand: row.card_brand,
          cardLast4: row.card_last4,
          storeCode: row.store_id ? stores.get(row.store_id) ?? null : null,
        };
      });
    }
  }

  /** Views of several payments with two extra queries in all (their stores and sessions), not two per row. */
  /** `read`: the sessions' expiries, when the caller has read them already. */
  private async views(rows: PaymentRow[], q: Kysely<DB> = this.db.kysely, read?: Array<{ id: string; expires_at: string }>) {
    const storeIds = [...new Set(rows.map((r) => r.store_id).filter((id): id is string => id !== null))];
    const sessionIds = [...new Set(rows.map((r) => r.session_id).filter((id): id is string => id !== null))];
    const stores = storeIds.length
      ? await q.selectFrom('stores').select(['id', 'code', 'name']).where('id', 'in', storeIds).execute()
      : [];
    const sessions = read ?? (sessionIds.length === 1
      ? await sessionExpiry.execute(q, { id: sessionIds[0]! })
      : sessionIds.length
        ? await q.selectFrom('payment_sessions').select(['id', 'expires_at']).where('id', 'in', sessionIds).execute()
        : []);
    const storeById = new Map<string, StoreRef>(stores.map((s) => [s.id, storeRef(s)]));
    const sessionById = new Map(sessions.map((s) => [s.id, s]));
    return rows.map((row) =>
      paymentView(row, row.store_id ? storeById.get(row.store_id) ?? null : null, row.session_id ? sessionById.get(row.session_id) : undefined),
    );
  }
}
