// The test-mode acquirer: behaves like a real one for every test card of docs/checkout.md, and keeps
// in its own tables only what the simulation needs (a keyed fingerprint, brand, networks, last four digits,
// expiry and the behaviour the number selected). The number and the security code are never stored.
import { createHmac, randomBytes } from 'node:crypto';
import type { Insertable, Kysely } from 'kysely';
import { compiledInsertPair, compiledQuery, type BoundStatement } from '../../db/compiled.js';
import type { Database } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import type { Mode } from '../../modules/merchants/merchants.table.js';
import type { Clock } from '../../shared/clock.js';
import { addSeconds, iso } from '../../shared/clock.js';
import { base62, pooledRandom, timeOrderedDigits } from '../../shared/ids.js';
import { invalidField } from '../../shared/errors.js';
import type {
  Acquirer, AuthorizationOutcome, AuthorizationView, AuthorizeInput, CardInfo, CardNetwork, CardSource, DisputeNotice,
  LocalRecords, OperationResult, RefundInput, RefundView, RefusalCode, SettlementLine, TokenizeInput, TokenizeResult, TokenSlot, VerifyOutcome,
} from '../acquirer.js';
import { REFUSAL_MESSAGES } from '../acquirer.js';
import type { AcquirerAuthorizationRow, AcquirerAuthorizationsTable, AcquirerCardRow } from '../acquirer.table.js';
import { chooseNetwork, detectBrand, digitsOnly, luhnValid, networksOf } from '../cards.js';
import { behaviourOf, DISPUTE_AFTER_SECONDS, type Behaviour } from './test-cards.js';

const TOKEN_LIFETIME_SECONDS = 30 * 60;
const insertCardAndToken = compiledInsertPair('acquirer_cards', 'acquirer_tokens');
const FINGERPRINT_SETTING = 'acquirer.fingerprint_key';

/** A random id: for what is a bearer capability (a card token; the authorization whose challenge page its id opens). */
function simId(prefix: string): string {
  return `${prefix}_${base62(pooledRandom(16), 22)}`;
}

/**
 * A time-ordered id (src/shared/ids.ts), for the rows that are no capability: a card (only Motu holds its id, as a
 * saved card's reference) and an authorization without a challenge (the challenge page answers only a pending
 * challenge). Each payment's rows then land at the end of the primary keys instead of on a random page of each.
 */
function simOrderedId(prefix: string): string {
  return `${prefix}_${timeOrderedDigits()}`;
}

// The statements of every test payment (token, authorization, capture), compiled once (src/db/compiled.ts).
const insertAuthorization = compiledQuery((db, p: Insertable<AcquirerAuthorizationsTable>) => db.insertInto('acquirer_authorizations').values({
  id: p.id, mode: p.mode, card_id: p.card_id, merchant_reference: p.merchant_reference, reference: p.reference, status: p.status,
  amount: p.amount, currency: p.currency, captured_amount: p.captured_amount, refunded_amount: p.refunded_amount, refusal_code: p.refusal_code,
  capture_on_auth: p.capture_on_auth, save_card: p.save_card, return_url: p.return_url, authentication: p.authentication,
  statement_label: p.statement_label, created_at: p.created_at, captured_at: p.captured_at, updated_at: p.updated_at,
}));
const cardById = compiledQuery((db, p: { id: string }) => db.selectFrom('acquirer_cards').selectAll().where('id', '=', p.id));
const unusedToken = compiledQuery((db, p: { id: string; mode: Mode; now: string }) => db.selectFrom('acquirer_tokens').selectAll()
  .where('id', '=', p.id).where('mode', '=', p.mode).where('used_at', 'is', null).where('expires_at', '>', p.now));
const spendUnusedToken = compiledQuery((db, p: { id: string; mode: Mode; now: string }) => db.updateTable('acquirer_tokens')
  .set({ used_at: p.now }).where('id', '=', p.id).where('mode', '=', p.mode).where('used_at', 'is', null).where('expires_at', '>', p.now)
  .returning('card_id'));
// The token spent and its card read in one statement, where the database can (Capabilities.updateReturnsJoined).
const spendUnusedTokenCard = compiledQuery((db, p: { id: string; mode: Mode; now: string }) => db.updateTable('acquirer_tokens')
  .from('acquirer_cards').set({ used_at: p.now }).whereRef('acquirer_cards.id', '=', 'acquirer_tokens.card_id')
  .where('acquirer_tokens.id', '=', p.id).where('acquirer_tokens.mode', '=', p.mode).where('acquirer_tokens.used_at', 'is', null)
  .where('acquirer_tokens.expires_at', '>', p.now)
  .returningAll('acquirer_cards'));
const captureAuthorization = compiledQuery((db, p: { id: string; mode: Mode; amount: number; now: string }) => db.updateTable('acquirer_authorizations')
  .set({ status: 'captured', captured_amount: p.amount, captured_at: p.now, updated_at: p.now })
  .where('id', '=', p.id).where('mode', '=', p.mode).where('status', '=', 'authorized').where('amount', '>=', p.amount));
const authorizationsWithCards = compiledQuery((db, p: { merchantReference: string; mode: Mode }) => db
  .selectFrom('acquirer_authorizations as a').innerJoin('acquirer_cards as c', 'c.id', 'a.card_id')
  .selectAll('a')
  .select(['c.brand as card_brand', 'c.network as card_network', 'c.networks as card_networks', 'c.last4 as card_last4',
    'c.exp_month as card_exp_month', 'c.exp_year as card_exp_year', 'c.fingerprint as card_fingerprint'])
  .where('a.merchant_reference', '=', p.merchantReference).where('a.mode', '=', p.mode).orderBy('a.created_at').orderBy('a.id'));

type AuthorizationWithCard = Awaited<ReturnType<typeof authorizationsWithCards.execute>>[number];

/** The attempts as the simulator shows them, from authorizationsWithCards's rows. */
function viewsOf(rows: AuthorizationWithCard[]): AuthorizationView[] {
  return rows.map(({ card_brand, card_network, card_networks, card_last4, card_exp_month, card_exp_year, card_fingerprint, ...row }) => viewOf(row, {
    brand: card_brand, network: card_network, networks: card_networks, last4: card_last4, exp_month: card_exp_month,
    exp_year: card_exp_year, fingerprint: card_fingerprint,
  }));
}

export interface SimulatorOptions {
  /** Base of the simulated bank page URL (the service's public URL). */
  publicUrl: string;
  /** Seconds between a capture and its settlement (MOTU_TEST_SETTLEMENT_DELAY). */
  settlementDelaySeconds: number;
}

export class SimulatorAcquirer implements Acquirer, LocalRecords {
  readonly name = 'simulator';
  /** Its records are rows of Motu's database: the checkout and the capture write them on their own transactions. */
  readonly local: LocalRecords = this;
  private fingerprintKey: Promise<string> | null = null;

  constructor(private readonly db: Database, private readonly clock: Clock, private readonly options: SimulatorOptions) {}

  chooseNetwork(networks: CardNetwork[]): CardNetwork {
    return chooseNetwork(networks);
  }

  /**
   * `slot`: the session's card-token slot, spent whatever the answer (a number refused here too: a card tester's tries
   * count), and taken in the same write as the card and its token: on SQLite one turn of the group commit instead of
   * two, on PostgreSQL the same two statements as before. A session refused its slot leaves no card behind.
   */
  async tokenize(input: TokenizeInput, slot?: TokenSlot): Promise<TokenizeResult> {
    let typed: { number: string; card: CardInfo; now: Date };
    try {
      typed = await this.typedCard(input);
    } catch (err) {
      if (slot) await this.db.singleWrite(slot);
      throw err;
    }
    const { number, card, now } = typed;
    const cardId = simOrderedId('card');
    const token = simId('tok');
    // The card and its token, all or none (compiledInsertPair): on PostgreSQL one statement, shared with the tokens
    // asked at the same moment, instead of a transaction of four round trips each.
    await this.db.singleWrite(async (q) => {
      await slot?.(q);
      await insertCardAndToken(this.db, q, {
        id: cardId, mode: input.mode, fingerprint: card.fingerprint, brand: card.brand, network: card.network,
        networks: JSON.stringify(card.networks), last4: card.last4, exp_month: card.expMonth, exp_year: card.expYear,
        behaviour: behaviourOf(number), saved: 0, state: 'active', created_at: iso(now),
      }, {
        id: token, mode: input.mode, card_id: cardId, created_at: iso(now),
        expires_at: iso(addSeconds(now, TOKEN_LIFETIME_SECONDS)), used_at: null,
      });
    });
    return { token, ...card };
  }

  /** The card typed, checked (the number's Luhn digit, its expiry, its security code's length), with its fingerprint. */
  private async typedCard(input: TokenizeInput): Promise<{ number: string; card: CardInfo; now: Date }> {
    const number = digitsOnly(input.number);
    if (!luhnValid(number)) throw invalidField('number', 'is not a valid card number');
    if (!Number.isInteger(input.expMonth) || input.expMonth < 1 || input.expMonth > 12) throw invalidField('expMonth', 'must be 1 to 12');
    const year = input.expYear < 100 ? 2000 + input.expYear : input.expYear;
    const now = this.clock.now();
    const nowMonth = now.getUTCFullYear() * 12 + now.getUTCMonth();
    if (!Number.isInteger(year) || year * 12 + input.expMonth - 1 < nowMonth || year > now.getUTCFullYear() + 30) {
      throw invalidField('expYear', 'the card has expired or the date is not valid');
    }
    if (!/^\d{3,4}$/.test(input.cvc)) throw invalidField('cvc', 'must be 3 or 4 digits');
    const brand = detectBrand(number);
    const networks = networksOf(number, brand);
    const card: CardInfo = {
      brand,
      network: this.chooseNetwork(networks),
      networks,
      last4: number.slice(-4),
      expMonth: input.expMonth,
      expYear: year,
      fingerprint: await this.fingerprint(number),
    };
    return { number, card, now };
  }

  /**
   * Deletes the tokens never used that are past their lifetime, and their cards (the purge-card-tokens job): the token
   * endpoint is anonymous, and without this every call would leave two rows for good. Each token has its own card,
   * written with it; a token never used never backed an authorization nor a verification (both use it up), so its card
   * is kept by nothing (`saved = 0` checked all the same). Batches of `batchSize`, each its own transaction: other
   * writes interleave, and a purge stopped half-way leaves nothing behind that the next run does not find.
   */
  async purgeUnusedTokens(now: Date, batchSize = 500): Promise<number> {
    let purged = 0;
    for (;;) {
      const deleted = await this.db.transaction(async (trx) => {
        const tokens = await trx.selectFrom('acquirer_tokens').select(['id', 'card_id'])
          .where('used_at', 'is', null).where('expires_at', '<', iso(now)).orderBy('expires_at').limit(batchSize).execute();
        if (tokens.length === 0) return 0;
        await trx.deleteFrom('acquirer_tokens').where('id', 'in', tokens.map((t) => t.id)).where('used_at', 'is', null).execute();
        await trx.deleteFrom('acquirer_cards').where('id', 'in', tokens.map((t) => t.card_id)).where('saved', '=', 0).execute();
        return tokens.length;
      });
      purged += deleted;
      if (deleted < batchSize) return purged;
    }
  }

  async describe(mode: Mode, source: CardSource): Promise<CardInfo | null> {
    const card = await this.cardOf(mode, source, false);
    return card ? cardInfo(card) : null;
  }

  async verify(input: { mode: Mode; token: string }): Promise<VerifyOutcome> {
    const card = await this.cardOf(input.mode, { token: input.token }, true);
    if (!card) return { status: 'error', code: 'INVALID_TOKEN', message: 'The card token is unknown, expired or already used' };
    const refusal = refusalFor(card.behaviour as Behaviour, 'verify');
    if (refusal) return { status: 'refused', card: cardInfo(card), refusalCode: refusal, refusalMessage: REFUSAL_MESSAGES[refusal] };
    if (card.behaviour === 'browser_unfit') return browserUnfit();
    await this.db.kysely.updateTable('acquirer_cards').set({ saved: 1 }).where('id', '=', card.id).execute();
    return { status: 'verified', cardRef: card.id, card: cardInfo(card) };
  }

  async authorize(input: AuthorizeInput): Promise<AuthorizationOutcome> {
    if (input.reference !== undefined) {
      const earlier = await this.authorizationByReference(input.mode, input.reference);
      if (earlier) return earlier;
    }
    try {
      return await this.authorizeOnce(input);
    } catch (err) {
      // A concurrent call with the same reference inserted first (the unique index): its authorization is the answer.
      if (input.reference === undefined || !this.db.isUniqueViolation(err)) throw err;
      const first = await this.authorizationByReference(input.mode, input.reference);
      if (!first) throw err;
      return first;
    }
  }

  /** The simulated bank page of a 3-D Secure challenge. */
  private challengeUrl(authorizationId: string): string {
    return `${this.options.publicUrl}/acquirer/v1/3ds/${authorizationId}`;
  }

  /** The authorization made under an idempotency reference, as a repeated authorize call answers it; null if none. */
  private async authorizationByReference(mode: Mode, reference: string): Promise<AuthorizationOutcome | null> {
    const row = await this.db.kysely.selectFrom('acquirer_authorizations').selectAll()
      .where('mode', '=', mode).where('reference', '=', reference).executeTakeFirst();
    if (!row) return null;
    const card = await this.db.kysely.selectFrom('acquirer_cards').selectAll().where('id', '=', row.card_id).executeTakeFirstOrThrow();
    if (row.status === 'challenge') {
      return { status: 'challenge', authorizationId: row.id, card: cardInfo(card), challengeUrl: this.challengeUrl(row.id) };
    }
    if (row.status === 'cancelled') {
      return { status: 'error', code: 'INVALID_TOKEN', message: `Authorization ${row.id} under this reference was cancelled` };
    }
    return outcomeOf(row, card);
  }

  /**
   * The token spent (or the saved card read) and the authorization written in one Database.singleWrite: on SQLite one
   * turn of the group commit instead of four statements each waiting for the connection, the token's update among them
   * no longer a commit with an fsync of its own on the event loop; on PostgreSQL the same statements as before, in order
   * (no transaction: a failed insert leaves the token spent there, while on SQLite it is given back with the insert).
   */
  private async authorizeOnce(input: AuthorizeInput): Promise<AuthorizationOutcome> {
    const outcome = await this.db.singleWrite((q) => this.authorizeOn(q, input));
    if (outcome) return outcome;
    // No card: the token was spent by a concurrent call with the same reference, whose authorization is the answer.
    const first = input.reference === undefined ? null : await this.authorizationByReference(input.mode, input.reference);
    if (first) return first;
    return noCard(input.source);
  }

  sharesDatabase(db: Database): boolean {
    return db === this.db;
  }

  /**
   * authorize on the caller's transaction (LocalRecords): the token's update, and the authorization's insert, which on
   * PostgreSQL goes with the transaction's next statement (deferWrite): a new row under a new id, whose only failure
   * would fail that transaction too.
   */
  async authorizeIn(trx: Kysely<DB>, input: AuthorizeInput): Promise<AuthorizationOutcome> {
    if (input.reference !== undefined) throw new Error('authorizeIn: an idempotency reference is authorize\'s');
    return (await this.authorizeOn(trx, input)) ?? noCard(input.source);
  }

  /** The authorization made on `q`; null when the source names no usable card. */
  private async authorizeOn(q: Kysely<DB>, input: AuthorizeInput): Promise<AuthorizationOutcome | null> {
    const card = await this.cardOf(input.mode, input.source, 'token' in input.source, q);
    if (!card) return null;
    const behaviour = card.behaviour as Behaviour;
    if (behaviour === 'browser_unfit' && input.threeDSecure) return browserUnfit();
    const now = iso(this.clock.now());
    const challenge = behaviour === 'challenge' && input.threeDSecure;
    // A challenge's id is the address of the simulated bank page: random. Any other is known only to Motu.
    const id = challenge ? simId('auth') : simOrderedId('auth');
    const base = {
      id, mode: input.mode, card_id: card.id, merchant_reference: input.merchantReference, reference: input.reference ?? null, amount: input.amount,
      currency: input.currency, captured_amount: 0, refunded_amount: 0, capture_on_auth: input.capture ? 1 : 0,
      save_card: input.saveCard ? 1 : 0, return_url: input.threeDSecure?.returnUrl ?? null, authentication: null,
      statement_label: input.statementLabel ?? null,
      created_at: now, captured_at: null, updated_at: now,
    };
    // A challenge needs the customer; a merchant-initiated charge (no 3-D Secure) goes through frictionless.
    if (challenge) {
      await insertAuthorization.defer(q, { ...base, status: 'challenge', refusal_code: null });
      return { status: 'challenge', authorizationId: id, card: cardInfo(card), challengeUrl: this.challengeUrl(id) } as const;
    }
    const refusal = refusalFor(behaviour, 'charge');
    if (refusal) {
      await insertAuthorization.defer(q, { ...base, status: 'refused', refusal_code: refusal });
      return { status: 'refused', authorizationId: id, card: cardInfo(card), refusalCode: refusal, refusalMessage: REFUSAL_MESSAGES[refusal] } as const;
    }
    const capture = Boolean(input.capture);
    await insertAuthorization.defer(q, {
      ...base, status: capture ? 'captured' : 'authorized', refusal_code: null,
      captured_amount: capture ? input.amount : 0, captured_at: capture ? now : null,
    });
    if (input.saveCard) await q.updateTable('acquirer_cards').set({ saved: 1 }).where('id', '=', card.id).execute();
    return { status: 'authorized', authorizationId: id, card: cardInfo(card), captured: capture, ...(input.saveCard ? { cardRef: card.id } : {}) } as const;
  }

  /** The simulated bank page's answer: 'authenticated' or 'failed'. Only once, only for a pending challenge. */
  async recordAuthentication(authorizationId: string, result: 'authenticated' | 'failed'): Promise<string | null> {
    const now = iso(this.clock.now());
    const updated = await this.db.kysely.updateTable('acquirer_authorizations')
      .set({ authentication: result, updated_at: now })
      .where('id', '=', authorizationId).where('status', '=', 'challenge').where('authentication', 'is', null)
      .executeTakeFirst();
    void updated; // a second answer changes nothing; the customer is still sent back
    const row = await this.db.kysely.selectFrom('acquirer_authorizations').select(['return_url']).where('id', '=', authorizationId).executeTakeFirst();
    if (!row?.return_url) return null;
    const url = new URL(row.return_url);
    url.searchParams.set('authorizationId', authorizationId);
    return url.toString();
  }

  async challengeStatus(authorizationId: string): Promise<{ pending: boolean; amount: number; currency: string; last4: string; brand: string } | null> {
    const row = await this.db.kysely.selectFrom('acquirer_authorizations')
      .innerJoin('acquirer_cards', 'acquirer_cards.id', 'acquirer_authorizations.card_id')
      .select(['acquirer_authorizations.status', 'acquirer_authorizations.authentication', 'acquirer_authorizations.amount',
        'acquirer_authorizations.currency', 'acquirer_cards.last4', 'acquirer_cards.brand'])
      .where('acquirer_authorizations.id', '=', authorizationId).executeTakeFirst();
    if (!row) return null;
    return { pending: row.status === 'challenge' && row.authentication === null, amount: row.amount, currency: row.currency, last4: row.last4, brand: row.brand };
  }

  async completeChallenge(mode: Mode, authorizationId: string): Promise<AuthorizationOutcome> {
    return this.db.transaction(async (trx) => {
      const row = await trx.selectFrom('acquirer_authorizations').selectAll().where('id', '=', authorizationId).where('mode', '=', mode).executeTakeFirst();
      if (!row) return { status: 'error', code: 'INVALID_TOKEN', message: 'Unknown authorization' } as const;
      const card = await trx.selectFrom('acquirer_cards').selectAll().where('id', '=', row.card_id).executeTakeFirstOrThrow();
      const now = iso(this.clock.now());
      if (row.status === 'challenge') {
        if (row.authentication === null) {
          return { status: 'challenge', authorizationId: row.id, card: cardInfo(card), challengeUrl: this.challengeUrl(row.id) } as const;
        }
        if (row.authentication === 'failed') {
          await trx.updateTable('acquirer_authorizations').set({ status: 'refused', refusal_code: 'authentication_failed', updated_at: now })
            .where('id', '=', row.id).where('status', '=', 'challenge').execute();
        } else {
          const capture = row.capture_on_auth === 1;
          await trx.updateTable('acquirer_authorizations').set({
            status: capture ? 'captured' : 'authorized', captured_amount: capture ? row.amount : 0, captured_at: capture ? now : null, updated_at: now,
          }).where('id', '=', row.id).where('status', '=', 'challenge').execute();
          if (row.save_card) await trx.updateTable('acquirer_cards').set({ saved: 1 }).where('id', '=', card.id).execute();
        }
      }
      const final = await trx.selectFrom('acquirer_authorizations').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
      return outcomeOf(final, card);
    });
  }

  async capture(input: { mode: Mode; authorizationId: string; amount: number }): Promise<OperationResult> {
    if (!Number.isInteger(input.amount) || input.amount <= 0) return { ok: false, reason: 'amount must be a positive integer' };
    const now = iso(this.clock.now());
    // Database.singleWrite: on SQLite a turn of the group commit, not a commit and an fsync of its own on the event loop.
    return captureAnswer(await this.db.singleWrite((q) => captureAuthorization.run(q, { id: input.authorizationId, mode: input.mode, amount: input.amount, now })));
  }

  /** capture as a statement on the caller's transaction (LocalRecords). */
  captureStatement(q: Kysely<DB>, input: { mode: Mode; authorizationId: string; amount: number }) {
    const now = iso(this.clock.now());
    return {
      statement: captureAuthorization.bind(q, { id: input.authorizationId, mode: input.mode, amount: input.amount, now }) as BoundStatement<unknown>,
      answer: captureAnswer,
    };
  }

  async cancel(input: { mode: Mode; authorizationId: string }): Promise<OperationResult> {
    const now = iso(this.clock.now());
    const res = await this.db.singleWrite((q) => q.updateTable('acquirer_authorizations').set({ status: 'cancelled', updated_at: now })
      .where('id', '=', input.authorizationId).where('mode', '=', input.mode)
      .where('status', 'in', ['authorized', 'challenge']).executeTakeFirst());
    return Number(res.numUpdatedRows) === 1 ? { ok: true } : { ok: false, reason: 'not an uncaptured authorization' };
  }

  async refund(input: RefundInput): Promise<OperationResult> {
    if (typeof input.reference !== 'string' || input.reference === '') return { ok: false, reason: 'a refund reference is required' };
    const earlier = await this.getRefund(input.mode, input.reference);
    if (earlier) return resultOf(earlier);
    const now = iso(this.clock.now());
    try {
      return await this.db.transaction(async (trx) => {
        // The reference row first: a concurrent call with the same reference waits on it (PostgreSQL) or runs
        // after (SQLite), then fails on the primary key and reads this call's result instead.
        await trx.insertInto('acquirer_refunds').values({
          reference: input.reference, mode: input.mode, authorization_id: input.authorizationId, amount: input.amount,
          status: 'refused', reason: null, created_at: now,
        }).execute();
        let reason: string | null = null;
        if (!Number.isInteger(input.amount) || input.amount <= 0) {
          reason = 'amount must be a positive integer';
        } else {
          // One conditional UPDATE: concurrent refunds can never exceed what was captured.
          const res = await trx.updateTable('acquirer_authorizations')
            .set((eb) => ({ refunded_amount: eb('refunded_amount', '+', input.amount), updated_at: now }))
            .where('id', '=', input.authorizationId).where('mode', '=', input.mode).where('status', '=', 'captured')
            .where((eb) => eb(eb('refunded_amount', '+', input.amount), '<=', eb.ref('captured_amount')))
            .executeTakeFirst();
          if (Number(res.numUpdatedRows) !== 1) reason = 'more than captured minus refunded, or not captured';
        }
        await trx.updateTable('acquirer_refunds').set({ status: reason ? 'refused' : 'succeeded', reason })
          .where('reference', '=', input.reference).execute();
        return reason ? { ok: false, reason } : { ok: true };
      });
    } catch (err) {
      if (!this.db.isUniqueViolation(err)) throw err;
      const first = await this.getRefund(input.mode, input.reference);
      if (!first) throw err;
      return resultOf(first);
    }
  }

  async getRefund(mode: Mode, reference: string): Promise<RefundView | null> {
    const row = await this.db.kysely.selectFrom('acquirer_refunds').selectAll()
      .where('reference', '=', reference).where('mode', '=', mode).executeTakeFirst();
    if (!row) return null;
    return {
      reference: row.reference, authorizationId: row.authorization_id, amount: row.amount,
      status: row.status === 'succeeded' ? 'succeeded' : 'refused', reason: row.reason, createdAt: row.created_at,
    };
  }

  async getAuthorization(mode: Mode, authorizationId: string): Promise<AuthorizationView | null> {
    const row = await this.db.kysely.selectFrom('acquirer_authorizations').selectAll().where('id', '=', authorizationId).where('mode', '=', mode).executeTakeFirst();
    if (!row) return null;
    const card = await this.db.kysely.selectFrom('acquirer_cards').selectAll().where('id', '=', row.card_id).executeTakeFirstOrThrow();
    return viewOf(row, card);
  }

  async listAuthorizations(mode: Mode, merchantReference: string): Promise<AuthorizationView[]> {
    // Each with its card, in one statement (a payment's detail reads them on every answer about it).
    return viewsOf(await authorizationsWithCards.execute(this.db.kysely, { merchantReference, mode }));
  }

  /** The simulator's record is its database's rows: read with the caller's other reads when it is the same database. */
  attemptsStatement(db: Kysely<DB>, mode: Mode, merchantReference: string) {
    if (db !== this.db.kysely) return undefined;
    return this.attemptsIn(db, mode, merchantReference);
  }

  attemptsIn(q: Kysely<DB>, mode: Mode, merchantReference: string) {
    return {
      statement: authorizationsWithCards.bind(q, { merchantReference, mode }) as BoundStatement<unknown>,
      answer: (rows: unknown[]) => viewsOf(rows as AuthorizationWithCard[]),
    };
  }

  /** The simulator's rows are its whole record: the same as listAuthorizations (never a call). */
  listAttempts(mode: Mode, merchantReference: string): Promise<AuthorizationView[]> {
    return this.listAuthorizations(mode, merchantReference);
  }

  async settlementReport(input: { mode: Mode; from: Date; to: Date }): Promise<SettlementLine[]> {
    // A capture settles `settlementDelaySeconds` after it was made; on the card that settles at once, when it was made.
    const captured = (delay: number, atOnce: boolean) => this.db.kysely.selectFrom('acquirer_authorizations as a')
      .innerJoin('acquirer_cards as c', 'c.id', 'a.card_id').selectAll('a')
      .where('a.mode', '=', input.mode).where('a.captured_at', 'is not', null)
      .where('c.behaviour', atOnce ? '=' : '<>', 'settle_at_once')
      .where('a.captured_at', '>=', iso(addSeconds(input.from, -delay)))
      .where('a.captured_at', '<', iso(addSeconds(input.to, -delay)))
      .orderBy('a.captured_at').execute()
      .then((rows) => rows.map((row) => ({
        authorizationId: row.id, merchantReference: row.merchant_reference, capturedAmount: row.captured_amount,
        currency: row.currency, capturedAt: row.captured_at!, settledAt: iso(addSeconds(new Date(row.captured_at!), delay)),
      })));
    const lines = [...await captured(this.options.settlementDelaySeconds, false), ...await captured(0, true)];
    return lines.sort((a, b) => a.settledAt.localeCompare(b.settledAt));
  }

  async disputeNotices(input: { mode: Mode; from: Date; to: Date }): Promise<DisputeNotice[]> {
    const rows = await this.db.kysely.selectFrom('acquirer_authorizations as a')
      .innerJoin('acquirer_cards as c', 'c.id', 'a.card_id').select(['a.id', 'a.merchant_reference', 'a.captured_amount', 'a.captured_at', 'c.behaviour'])
      .where('a.mode', '=', input.mode).where('a.captured_at', 'is not', null).where('c.behaviour', 'like', 'dispute:%')
      .where('a.captured_at', '>=', iso(addSeconds(input.from, -DISPUTE_AFTER_SECONDS)))
      .where('a.captured_at', '<', iso(addSeconds(input.to, -DISPUTE_AFTER_SECONDS)))
      .orderBy('a.captured_at').execute();
    return rows.map((row) => {
      const [, kind, reason] = row.behaviour.split(':') as [string, 'chargeback' | 'inquiry', string];
      return {
        authorizationId: row.id, merchantReference: row.merchant_reference, kind, reason, amount: row.captured_amount,
        notifiedAt: iso(addSeconds(new Date(row.captured_at!), DISPUTE_AFTER_SECONDS)),
      };
    });
  }

  /** Test helper for the wallet: make a saved card unusable ('disabled' or 'unknown' at the acquirer). */
  async setCardState(cardRef: string, state: 'active' | 'disabled' | 'unknown'): Promise<boolean> {
    const res = await this.db.kysely.updateTable('acquirer_cards').set({ state }).where('id', '=', cardRef).executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Looks the card up; a token is consumed (once only) when `consume` is set. */
  private async cardOf(mode: Mode, source: CardSource, consume: boolean, q: Kysely<DB> = this.db.kysely): Promise<AcquirerCardRow | null> {
    const now = iso(this.clock.now());
    if ('cardRef' in source) {
      const card = await q.selectFrom('acquirer_cards').selectAll()
        .where('id', '=', source.cardRef).where('mode', '=', mode).where('saved', '=', 1).where('state', '=', 'active').executeTakeFirst();
      return card ?? null;
    }
    // A token usable now: spent by the one conditional update that finds it (of two concurrent calls one spends it),
    // or only read.
    if (consume && this.db.caps.updateReturnsJoined) return (await spendUnusedTokenCard.executeTakeFirst(q, { id: source.token, mode, now })) ?? null;
    const token = consume
      ? await spendUnusedToken.executeTakeFirst(q, { id: source.token, mode, now })
      : await unusedToken.executeTakeFirst(q, { id: source.token, mode, now });
    if (!token) return null;
    const card = await cardById.executeTakeFirst(q, { id: token.card_id });
    return card ?? null;
  }

  private async fingerprint(number: string): Promise<string> {
    this.fingerprintKey ??= this.loadFingerprintKey();
    const key = await this.fingerprintKey;
    return createHmac('sha256', key).update(number).digest('base64url').slice(0, 22);
  }

  private async loadFingerprintKey(): Promise<string> {
    const read = () => this.db.kysely.selectFrom('settings').select('value').where('name', '=', FINGERPRINT_SETTING).executeTakeFirst();
    const existing = await read();
    if (existing) return existing.value;
    try {
      await this.db.kysely.insertInto('settings').values({ name: FINGERPRINT_SETTING, value: randomBytes(32).toString('hex') }).execute();
    } catch (err) {
      if (!this.db.isUniqueViolation(err)) throw err;
    }
    return (await read())!.value;
  }
}

/** A capture's answer from the rows its update changed. */
function captureAnswer(changed: number): OperationResult {
  return changed === 1 ? { ok: true } : { ok: false, reason: 'not an uncaptured authorization of at least this amount' };
}

/** The answer to a source that names no usable card. */
function noCard(source: CardSource): AuthorizationOutcome {
  return 'token' in source
    ? { status: 'error', code: 'INVALID_TOKEN', message: 'The card token is unknown, expired or already used' }
    : { status: 'error', code: 'UNKNOWN_CARD', message: 'The saved card is unknown or no longer usable' };
}

function resultOf(refund: RefundView): OperationResult {
  return refund.status === 'succeeded' ? { ok: true } : { ok: false, reason: refund.reason ?? 'refused' };
}

function browserUnfit(): AuthorizationOutcome & VerifyOutcome {
  return { status: 'error', code: 'NAVIGATEUR_INCOMPATIBLE', message: 'The card issuer judges this browser unfit for authentication' };
}

function refusalFor(behaviour: Behaviour, operation: 'verify' | 'charge'): RefusalCode | null {
  if (behaviour.startsWith('refuse:')) return behaviour.slice('refuse:'.length) as RefusalCode;
  if (behaviour === 'save_then_decline' && operation === 'charge') return 'card_declined';
  if (behaviour === 'save_then_unknown' && operation === 'charge') return 'card_unknown';
  return null;
}

function cardInfo(card: Pick<AcquirerCardRow, 'brand' | 'network' | 'networks' | 'last4' | 'exp_month' | 'exp_year' | 'fingerprint'>): CardInfo {
  return {
    brand: card.brand as CardInfo['brand'], network: card.network as CardNetwork, networks: JSON.parse(card.networks) as CardNetwork[],
    last4: card.last4, expMonth: card.exp_month, expYear: card.exp_year, fingerprint: card.fingerprint,
  };
}

function viewOf(row: AcquirerAuthorizationRow, card: Parameters<typeof cardInfo>[0]): AuthorizationView {
  return {
    id: row.id, merchantReference: row.merchant_reference, status: row.status, amount: row.amount, currency: row.currency,
    capturedAmount: row.captured_amount, refundedAmount: row.refunded_amount, card: cardInfo(card),
    refusalCode: row.refusal_code as RefusalCode | null, createdAt: row.created_at, capturedAt: row.captured_at,
    threeDSecure: row.authentication === 'authenticated' || row.authentication === 'failed' ? row.authentication
      : row.status === 'challenge' ? 'challenge_pending' : 'frictionless',
  };
}

function outcomeOf(row: AcquirerAuthorizationRow, card: AcquirerCardRow): AuthorizationOutcome {
  if (row.status === 'refused') {
    const code = (row.refusal_code ?? 'processing_error') as RefusalCode;
    return { status: 'refused', authorizationId: row.id, card: cardInfo(card), refusalCode: code, refusalMessage: REFUSAL_MESSAGES[code] };
  }
  if (row.status === 'challenge') {
    return { status: 'error', code: 'INVALID_TOKEN', message: 'The authentication is still pending' };
  }
  return {
    status: 'authorized', authorizationId: row.id, card: cardInfo(card), captured: row.status === 'captured',
    ...(row.save_card ? { cardRef: card.id } : {}),
  };
}
