// Payment sessions: every rule of the session request (docs/payments.md), then the session and its pending payment
// written together (Database.singleWrite: one transaction on SQLite, one statement on PostgreSQL). Precedence of
// failures: store codes (UNKNOWN_STORE, STORE_…), then an unknown customerId (404), then VALIDATION_ERROR listing
// every invalid field, then ORDER_AMOUNT_MISMATCH.
import type { Config } from '../../config.js';
import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import { ReferenceCache } from '../../db/reference-cache.js';
import { compiledInsertPair, compiledQuery } from '../../db/compiled.js';
import type { Owner } from '../merchants/principal.js';
import { addSeconds, type Clock } from '../../shared/clock.js';
import { AppError, notFound, validationError, type FieldError } from '../../shared/errors.js';
import { idForKeyUse, idFromKey, keyUseParts, newId, newPaymentReference, newTimeOrderedId } from '../../shared/ids.js';
import { toEurCents } from '../../shared/money.js';
import type { CustomerRow } from '../customers/customers.table.js';
import { timeOn } from '../test-clocks/clock-time.js';
import type { Contract, Mode, Store } from '../merchants/merchants.table.js';
import { checkOrderAmount, orderFieldProblems, taxOnTop } from './order.js';
import type { PaymentRow, PaymentSessionsTable } from '../payments/payments.table.js';
import { checkoutUrl, sessionView, storeRef } from '../payments/payments.views.js';
import { MAX_AMOUNT, type SessionInput } from './sessions.schemas.js';
import { urlProblem } from './urls.js';
import { asksForSplit, splitOrderJson, splitPlanOf } from '../splits/platform-config.js';
import { ownedBy } from '../merchants/scope.js';


const insertPaymentAndSession = compiledInsertPair('payments', 'payment_sessions');
// The customer a session names, by each of its keys, compiled once (src/db/compiled.ts): most sessions give an email.
type Owned = { merchantId: string; mode: Mode };
const ownedCustomers = (db: Kysely<DB>, p: Owned) => db.selectFrom('customers').selectAll().where('merchant_id', '=', p.merchantId).where('mode', '=', p.mode);
const customerById = compiledQuery((db, p: Owned & { id: string }) => ownedCustomers(db, p).where('id', '=', p.id));
const customerByEmail = compiledQuery((db, p: Owned & { emailKey: string }) => ownedCustomers(db, p).where('email_key', '=', p.emailKey));
const customerByExternalId = compiledQuery((db, p: Owned & { externalId: string }) => ownedCustomers(db, p).where('external_id', '=', p.externalId));


function storeError(code: 'UNKNOWN_STORE' | 'STORE_INACTIVE' | 'STORE_KIND_MISMATCH' | 'STORE_CONTRACT_INACTIVE' | 'STORE_CONTRACT_CONFLICT' | 'STORE_KEY_MISMATCH', message: string, field: string, extra: Record<string, unknown> = {}): AppError {
  return new AppError(code, message, { field, ...extra }, [{ field, message }]);
}

export class PaymentSessionsService {
  /** Stores, contracts and a split's platform links as the lookups below found them (src/db/reference-cache.ts). */
  private readonly reference: ReferenceCache;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly config: Pick<Config, 'publicUrl' | 'allowLoopbackUrls' | 'maxCardAttempts'>,
  ) {
    this.reference = new ReferenceCache(db);
  }

  /**
   * `channel: 'link'` makes a payment link (lifecycle.service.ts): same rules, a `lnk_` id, another default lifetime.
   * With `idempotencyKey` the payment id is derived from it (sessionIdsFor): a retry that runs again after the first
   * request was killed mid-way (its in-flight key abandoned) answers the session that run created instead of creating
   * a second payment. The `ses_` id stays random (it is the customer's bearer capability: a merchant's idempotency
   * keys are often order numbers, so an id derived from one would be guessable); the retry finds the session through
   * the payment, written in the same transaction.
   */
  async create(owner: Owner, input: SessionInput, options: { channel?: 'session' | 'link'; defaultExpiresIn?: number; idempotencyKey?: string } = {}) {
    const key = options.idempotencyKey;
    const channel = options.channel ?? 'session';
    let derivedPaymentId: string | undefined;
    if (key !== undefined) {
      const keyed = await idForKeyUse(
        (use) => sessionIdsFor(owner, channel, key, use).paymentId,
        (id) => this.db.kysely.selectFrom('payments').select(['id', 'session_id', 'store_id', 'external_id', 'created_at']).where('id', '=', id)
          .where(ownedBy(owner)).executeTakeFirst(),
        this.clock.now(),
      );
      derivedPaymentId = keyed.id;
      const earlier = keyed.earlier;
      const session = earlier?.session_id
        ? await this.db.kysely.selectFrom('payment_sessions').select(['id', 'expires_at']).where('id', '=', earlier.session_id).executeTakeFirst()
        : undefined;
      if (earlier && session) {
        const store = earlier.store_id
          ? await this.db.kysely.selectFrom('stores').select(['id', 'code', 'name']).where('id', '=', earlier.store_id).executeTakeFirst()
          : undefined;
        return {
          paymentId: earlier.id,
          sessionId: session.id,
          checkoutUrl: checkoutUrl(this.config.publicUrl, session.id),
          store: storeRef(store),
          status: 'pending' as const,
          externalId: earlier.external_id,
          expiresAt: session.expires_at,
        };
      }
    }
    const fields: FieldError[] = [];
    const policy = { mode: owner.mode, allowLoopbackUrls: this.config.allowLoopbackUrls };
    const urlChecks: Array<[string, string | undefined, 'return' | 'notification']> = [
      ['redirectUrl', input.redirectUrl, 'return'],
      ['failureRedirectUrl', input.failureRedirectUrl, 'return'],
      ['notificationUrl', input.notificationUrl, 'notification'],
    ];
    for (const [field, value, kind] of urlChecks) {
      if (value === undefined) continue;
      const problem = urlProblem(value, kind, policy);
      if (problem) fields.push({ field, message: problem });
    }
    const isInclTaxAmount = input.isInclTaxAmount ?? true;
    const { tax, problems: taxProblems } = taxOnTop(input.order, isInclTaxAmount);
    fields.push(...taxProblems, ...orderFieldProblems(input.order));
    const total = input.order.amount + tax;
    if (total > MAX_AMOUNT) fields.push({ field: 'order.amount', message: `with taxes added must not exceed ${MAX_AMOUNT}` });

    // Reads, then one write (Database.singleWrite): on PostgreSQL the whole creation is a single round trip when the
    // key, store and contract come from the reference cache.
    return this.db.singleWrite(async (q) => {
      const store = await this.resolveStore(q, owner, input.storeId);
      const contract = await this.resolveContract(q, owner, store, input.merchantConfigId, fields);
      const customer = await this.identifyCustomer(q, owner, input, fields);
      const saveCustomer = (input.saveCustomer ?? false) && !customer;
      const allowSave = input.allowCustomerToSavePaymentMethod ?? false;
      if (allowSave && !customer && !saveCustomer) {
        fields.push({
          field: 'allowCustomerToSavePaymentMethod',
          message: 'needs an identified customer (customerId, or an email or externalId of an existing customer) or saveCustomer true',
        });
      }
      if (fields.length > 0) throw validationError(fields);
      checkOrderAmount(input.order);
      // A split between a platform's sellers (docs/platforms.md): the card is charged order.amount − financing.
      const split = asksForSplit(input.order.platformConfig) ? await splitPlanOf(q, owner, input.order, { isInclTaxAmount, reference: this.reference }) : null;
      if (!contract) throw new AppError('BUSINESS_RULE_VIOLATION', 'This merchant has no active default contract; ask the operator to set one');
      const charged = split ? split.charge : total;

      // A customer on a test clock: the payment and its session live at the clock's time, and expire by it.
      const testClockId = customer?.test_clock_id ?? null;
      const now = await timeOn(q, testClockId, this.clock.now());
      const createdAt = now.toISOString();
      const expiresAt = addSeconds(now, input.expiresIn ?? options.defaultExpiresIn ?? 86_400).toISOString();
      // The payment's id is time-ordered (src/shared/ids.ts): it is no capability, every route that takes it asks for
      // the merchant's key (or a signed-in user of the merchant) and answers 404 for another merchant's, so its
      // creation time, which the payment shows anyway, is all it tells. Its rows then land at the end of the indexes
      // keyed by it (payments', its events', its balance transactions', the simulator's authorizations by merchant
      // reference) instead of on a random page of each. The session's id is the hosted page's capability: random.
      const paymentId = derivedPaymentId ?? newTimeOrderedId('pay');
      const sessionId = newId('ses');
      const privateData = { ...(input.privateData ?? {}), ...(input.email ? { customerEmail: input.email } : {}) };
      const payment: PaymentRow = {
        id: paymentId,
        merchant_id: owner.merchantId,
        mode: owner.mode,
        session_id: sessionId,
        status: 'pending',
        reference: newPaymentReference(),
        order_reference: input.order.reference ?? null,
        external_id: input.externalId ?? null,
        amount: charged,
        currency: input.order.currency,
        amount_eur_cents: toEurCents(charged, input.order.currency),
        tax_amount: tax,
        is_incl_tax_amount: isInclTaxAmount ? 1 : 0,
        order_json: split ? splitOrderJson(input.order, split.plan) : JSON.stringify(input.order),
        capture_mode: input.captureMode ?? 'AUTO',
        store_id: store?.id ?? null,
        contract_id: contract.id,
        customer_id: customer?.id ?? null,
        customer_created: 0,
        email: input.email ?? customer?.email ?? null,
        save_customer: saveCustomer ? 1 : 0,
        // '' is "none" (a link without one): the column predates optional URLs and stays NOT NULL.
        notification_url: input.notificationUrl ?? '',
        private_data: Object.keys(privateData).length > 0 ? JSON.stringify(privateData) : null,
        authorized_amount: 0,
        captured_amount: 0,
        refunded_amount: 0,
        disputed_amount: 0,
        refusal_code: null,
        refusal_message: null,
        payment_method_id: null,
        card_brand: null,
        card_last4: null,
        card_network: null,
        acquirer_authorization_id: null,
        operation: null,
        operation_at: null,
        refund_reserved: 0,
        authorization_attempts: 0,
        settled_at: null,
        authorized_at: null,
        captured_at: null,
        settled: 0,
        subscription_id: null,
        due_date: null,
        invoice_id: null,
        test_clock_id: testClockId,
        created_at: createdAt,
        updated_at: createdAt,
      };
      const session: Insertable<PaymentSessionsTable> = {
        id: sessionId,
        merchant_id: owner.merchantId,
        mode: owner.mode,
        kind: 'payment',
        status: 'open',
        payment_id: paymentId,
        customer_id: customer?.id ?? null,
        channel: options.channel ?? 'session',
        redirect_url: input.redirectUrl ?? null,
        // Stored resolved: the failure return defaults to redirectUrl.
        failure_redirect_url: input.failureRedirectUrl ?? input.redirectUrl ?? null,
        success_page_mode: input.successPageMode ?? 'auto',
        failure_page_mode: input.failurePageMode ?? 'show',
        language_code: input.languageCode ?? 'fr',
        allow_save_payment_method: allowSave ? 1 : 0,
        save_payment_method_default: (input.savePaymentMethodCheckedByDefault ?? true) ? 1 : 0,
        offer_saved_cards: input.customerId && customer ? 1 : 0,
        email: input.email ?? customer?.email ?? null,
        expires_at: expiresAt,
        test_clock_id: testClockId,
        created_at: createdAt,
        completed_at: null,
        link_id: options.channel === 'link' ? newId('lnk') : null,
      };
      await insertPaymentAndSession(this.db, q, payment, session);
      return {
        paymentId,
        sessionId,
        checkoutUrl: checkoutUrl(this.config.publicUrl, sessionId),
        store: storeRef(store),
        status: 'pending' as const,
        externalId: payment.external_id,
        expiresAt,
      };
    });
  }

  async linkIdOf(sessionId: string): Promise<string> {
    const row = await this.db.kysely.selectFrom('payment_sessions').select('link_id').where('id', '=', sessionId).executeTakeFirstOrThrow();
    return row.link_id ?? sessionId;
  }

  async get(owner: Owner, id: string) {
    const session = await this.db.kysely
      .selectFrom('payment_sessions')
      .selectAll()
      .where('id', '=', id)
      .where(ownedBy(owner))
      .where('kind', '=', 'payment')
      .executeTakeFirst();
    if (!session || !session.payment_id) throw notFound('payment session', id);
    const payment = await this.db.kysely.selectFrom('payments').selectAll().where('id', '=', session.payment_id).executeTakeFirstOrThrow();
    // A key attached to a store sees only that store's sessions (docs/reliability.md, Isolation).
    if (owner.storeId && payment.store_id !== owner.storeId) throw notFound('payment session', id);
    const store = payment.store_id
      ? await this.db.kysely.selectFrom('stores').select(['id', 'code', 'name']).where('id', '=', payment.store_id).executeTakeFirst()
      : undefined;
    return sessionView(this.config.publicUrl, session, payment, storeRef(store), this.config.maxCardAttempts);
  }

  /**
   * The key's store prevails; the body may repeat it (by id or code), never contradict it. An unknown,
   * inactive or physical store fails the call; it is never ignored.
   */
  async resolveStore(q: Kysely<DB>, owner: Owner, requested: string | undefined): Promise<Store | undefined> {
    const byRef = (ref: string) =>
      this.reference.get(`store-ref:${owner.merchantId}:${ref}`, () => q
        .selectFrom('stores')
        .selectAll()
        .where('merchant_id', '=', owner.merchantId)
        .where((eb) => eb.or([eb('id', '=', ref), eb('code', '=', ref)]))
        .orderBy('id')
        .execute());
    let store: Store | undefined;
    if (owner.storeId) {
      const storeId = owner.storeId;
      store = await this.reference.get(`store-id:${owner.merchantId}:${storeId}`, () =>
        q.selectFrom('stores').selectAll().where('id', '=', storeId).where('merchant_id', '=', owner.merchantId).executeTakeFirst(),
      );
      if (!store) throw storeError('UNKNOWN_STORE', 'The store this API key is attached to no longer exists', 'storeId');
      if (requested !== undefined && requested !== store.id && requested !== store.code) {
        throw storeError(
          'STORE_KEY_MISMATCH',
          `This API key is attached to store ${store.code}; storeId "${requested}" designates another one`,
          'storeId',
          { keyStoreId: store.id },
        );
      }
    } else if (requested !== undefined) {
      const matches = await byRef(requested);
      // An id always wins over a code that happens to look the same.
      store = matches.find((s) => s.id === requested) ?? matches[0];
      if (!store) throw storeError('UNKNOWN_STORE', `No store has the id or code "${requested}"`, 'storeId', { storeId: requested });
    }
    if (!store) return undefined;
    if (store.active !== 1) throw storeError('STORE_INACTIVE', `Store ${store.code} is disabled`, 'storeId', { storeId: store.id });
    if (store.kind === 'physical') {
      throw storeError('STORE_KIND_MISMATCH', `Store ${store.code} is a physical point of sale; it does not collect remotely`, 'storeId', {
        storeId: store.id,
      });
    }
    return store;
  }

  /**
   * merchantConfigId, if given, must be an active contract of this merchant; when the store has its own contract,
   * both must be the same (a store without its own contract designates none, so merchantConfigId applies).
   * Otherwise the store's contract, else the merchant's active default contract.
   */
  async resolveContract(
    q: Kysely<DB>,
    owner: Owner,
    store: Store | undefined,
    merchantConfigId: string | undefined,
    fields: FieldError[],
  ): Promise<Contract | undefined> {
    const contractById = (id: string) =>
      this.reference.get(`contract:${owner.merchantId}:${id}`, () =>
        q.selectFrom('contracts').selectAll().where('id', '=', id).where('merchant_id', '=', owner.merchantId).executeTakeFirst(),
      );
    const storeContract = store?.contract_id ? await contractById(store.contract_id) : undefined;
    if (store?.contract_id && (!storeContract || storeContract.active !== 1)) {
      throw storeError('STORE_CONTRACT_INACTIVE', `The contract of store ${store.code} is no longer active`, 'storeId', {
        storeId: store.id,
        contractId: store.contract_id,
      });
    }
    if (merchantConfigId !== undefined) {
      const requested = await contractById(merchantConfigId);
      if (!requested) {
        fields.push({ field: 'merchantConfigId', message: 'is not a contract of this merchant' });
        return undefined;
      }
      if (storeContract && storeContract.id !== requested.id) {
        throw storeError(
          'STORE_CONTRACT_CONFLICT',
          `Store ${store!.code} collects under contract ${storeContract.id}; merchantConfigId designates ${requested.id}`,
          'merchantConfigId',
          { storeId: store!.id, storeContractId: storeContract.id, merchantConfigId: requested.id },
        );
      }
      if (requested.active !== 1) {
        fields.push({ field: 'merchantConfigId', message: 'is not an active contract' });
        return undefined;
      }
      return requested;
    }
    if (storeContract) return storeContract;
    return this.reference.get(`contract-default:${owner.merchantId}`, () =>
      q
        .selectFrom('contracts')
        .selectAll()
        .where('merchant_id', '=', owner.merchantId)
        .where('is_default', '=', 1)
        .where('active', '=', 1)
        .executeTakeFirst(),
    );
  }

  /**
   * Triple identification. customerId must name an existing customer (else 404). email and externalId attach
   * the payment to the customer they belong to when there is one; otherwise they are the anonymous payment's
   * receipt email and correlation id (integrations send externalId = their own order or cart id).
   * Two identifiers that designate two different customers are a 400 on the later field.
   */
  private async identifyCustomer(q: Kysely<DB>, owner: Owner, input: SessionInput, fields: FieldError[]): Promise<CustomerRow | undefined> {
    const owned = { merchantId: owner.merchantId, mode: owner.mode };
    const found: Array<[string, CustomerRow]> = [];
    if (input.customerId !== undefined) {
      const byId = await customerById.executeTakeFirst(q, { ...owned, id: input.customerId });
      if (!byId) {
        throw new AppError('NOT_FOUND', `No customer with id ${input.customerId}`, { field: 'customerId', id: input.customerId });
      }
      found.push(['customerId', byId]);
    }
    if (input.email !== undefined) {
      const byEmail = await customerByEmail.executeTakeFirst(q, { ...owned, emailKey: input.email.toLowerCase() });
      if (byEmail) found.push(['email', byEmail]);
    }
    if (input.externalId !== undefined) {
      const byExternal = await customerByExternalId.executeTakeFirst(q, { ...owned, externalId: input.externalId });
      if (byExternal) found.push(['externalId', byExternal]);
    }
    const [first] = found;
    if (!first) return undefined;
    for (const [field, customer] of found.slice(1)) {
      if (customer.id !== first[1].id) {
        fields.push({ field, message: `identifies customer ${customer.id}, not ${first[1].id} designated by ${first[0]}` });
      }
    }
    return first[1];
  }
}

/**
 * The payment id of the session asked under `idempotencyKey`: `pay_` + 22 base62 digits of a SHA-256 of the merchant,
 * mode, channel and key, as uniform as random ids. The same key always names the same payment (within one use of the
 * key: a key used again after its 24 hours names the next `use`'s, see idForKeyUse). The session's `ses_` is random.
 */
export function sessionIdsFor(owner: Pick<Owner, 'merchantId' | 'mode'>, channel: string, idempotencyKey: string, use = 0): { paymentId: string } {
  const parts = keyUseParts([owner.merchantId, owner.mode, channel, idempotencyKey], use);
  return { paymentId: idFromKey('pay', ['pay', ...parts]) };
}
