// The card-data boundary. Motu talks to an acquirer only through this interface: it never sees a card
// number, only one-time tokens, durable card references, and what the acquirer tells about a card
// (brand, network, last four digits, expiry, fingerprint). The test-mode simulator implements it;
// a live connector implements the same interface (see acquirers.ts for how one is chosen).
import type { Kysely } from 'kysely';
import type { Database } from '../db/adapter.js';
import type { DB } from '../db/schema.js';
import { runBound, type BoundStatement } from '../db/compiled.js';
import type { Mode } from '../modules/merchants/merchants.table.js';
import { AppError } from '../shared/errors.js';

/**
 * What a live connector keeps of an answer it gave (the attempt's outcome, a capture Monext accepted): written by the
 * caller inside the transaction that records the same answer in Motu, so the two commit together and the connector
 * adds no write of its own. A caller that records nothing in a transaction of its own writes it alone (`keepAlone`).
 */
export type Keep = (q: Kysely<DB>) => Promise<unknown>;

/**
 * A connector's record of an attempt's outcome, kept as `Keep` is: a statement with its values, which changes a row when
 * this call recorded the outcome and none when another had. An outcome that can be read more than once (a widget's: the
 * page's pay call, the acquirer's return and its notification all read the same one, sometimes at the same moment) is
 * recorded by the first caller alone; the others record nothing of it (no second event, no second attempt, nothing
 * given back). A statement rather than a function, so that the caller can send it with its own next statement
 * (alongside, src/db/compiled.ts: on PostgreSQL one round trip), undoing what that wrote when it changed nothing.
 */
export type KeepOnce = BoundStatement<unknown>;

/** Writes a connector's record of an outcome alone, for a caller with no transaction of its own to put it in. */
export async function keepAlone(db: Database, keep: KeepOnce | undefined): Promise<void> {
  if (keep) await db.transaction((trx) => runBound(trx, keep));
}

/**
 * A live acquirer's answer is unknown (no answer in time, a 5xx, a body that cannot be read): the operation may or may
 * not have been done. Nothing final is recorded and a claim is kept, so the recovery reads the outcome back from the
 * acquirer (docs/payments.md, Recovery). Answered 503 SERVICE_UNAVAILABLE.
 */
export class AcquirerOutcomeUnknown extends AppError {
  constructor(message: string) {
    super('SERVICE_UNAVAILABLE', message);
  }
}

/** Card schemes the brand detection knows. */
export type CardBrand = 'VISA' | 'MASTERCARD' | 'AMEX' | 'UNKNOWN';
/** The network an operation is routed on. CB is chosen for co-badged cards. */
export type CardNetwork = 'VISA' | 'MASTERCARD' | 'CB' | 'AMEX';

/** Refusal codes the acquirer reports (each has a test card, docs/checkout.md). */
export type RefusalCode =
  | 'card_declined' | 'insufficient_funds' | 'expired_card' | 'incorrect_cvc' | 'processing_error'
  | 'authentication_failed'
  /** The issuer no longer knows the card (closed, replaced): a saved card with this refusal is removed. */
  | 'card_unknown';

/** What each refusal says to a merchant (and, through the pages, to a cardholder), whichever acquirer refused. */
export const REFUSAL_MESSAGES: Record<RefusalCode, string> = {
  card_declined: 'The card was declined by the issuing bank',
  insufficient_funds: 'The card has insufficient funds',
  expired_card: 'The card has expired',
  incorrect_cvc: 'The security code is incorrect',
  processing_error: 'An error occurred while processing the card',
  authentication_failed: 'The 3-D Secure authentication failed',
  card_unknown: 'The issuing bank no longer knows this card',
};

/** What Motu may know about a card. Never the number or the security code. */
export interface CardInfo {
  brand: CardBrand;
  /** The network applied: CB when the card is co-badged, else the brand's own network. */
  network: CardNetwork;
  /** Every network the card carries (two for a co-badged card). */
  networks: CardNetwork[];
  last4: string;
  expMonth: number;
  expYear: number;
  /** Stable per card number (keyed hash): tells whether two tokens are the same card. */
  fingerprint: string;
}

/**
 * The card-token slot of the session the card is typed for (src/modules/sessions/token-budget.ts), taken on the handle
 * given; throws when the session has none left. A connector that writes its cards to Motu's database takes it in the
 * same write as the card.
 */
export type TokenSlot = (q: Kysely<DB>) => Promise<void>;

export interface TokenizeInput {
  mode: Mode;
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
}

export interface TokenizeResult extends CardInfo {
  /** One-time token (`tok_…`), usable once by verify or authorize, for 30 minutes. */
  token: string;
}

/** Where a charge takes its card from: a one-time token from the fields, or a saved card reference. */
export type CardSource = { token: string } | { cardRef: string };

export interface AuthorizeInput {
  mode: Mode;
  source: CardSource;
  amount: number;
  currency: string;
  /** Motu's payment id: the acquirer's merchant reference, for attempts and reconciliation. */
  merchantReference: string;
  /**
   * Idempotency reference. A second call with the same reference (in the same mode) returns the first call's
   * authorization as it stands and never authorizes again, also while the first call is still running, so a caller
   * that lost the answer (killed, timed out) can always ask again. A merchant-initiated payment gives its `pay_` id:
   * it has exactly one authorization. The hosted page's attempts give none: each spends a one-time card token.
   */
  reference?: string;
  /** The customer is present and can take a 3-D Secure challenge; the bank page returns to this URL. */
  threeDSecure?: { returnUrl: string };
  /** Keep the card for later charges (returns `cardRef`). */
  saveCard?: boolean;
  /** Capture the full amount in the same call (AUTO capture). */
  capture?: boolean;
  /**
   * A charge of a saved card the merchant starts (`cardRef`): `recurring` for a subscription's due date (a series the
   * cardholder agreed to), `unscheduled` for any other one-off charge. Issuers treat the two differently (no 3-D Secure
   * for either, under the stored credential's first transaction).
   */
  initiated?: 'recurring' | 'unscheduled';
  /**
   * What the cardholder's bank statement shows for this charge: the contract's `statementLabel` (1–22 characters).
   * Every authorization Motu asks for carries it (hosted page, card component, merchant-initiated payments).
   */
  statementLabel?: string;
}

export type AuthorizationOutcome =
  | { status: 'authorized'; authorizationId: string; card: CardInfo; cardRef?: string; captured: boolean; keep?: KeepOnce }
  | { status: 'refused'; authorizationId: string; card: CardInfo | null; refusalCode: RefusalCode; refusalMessage: string; keep?: KeepOnce }
  | { status: 'challenge'; authorizationId: string; card: CardInfo; challengeUrl: string }
  /** Not a refusal: no authorization was attempted (e.g. NAVIGATEUR_INCOMPATIBLE, token reused). */
  | { status: 'error'; code: AcquirerErrorCode; message: string };

export type AcquirerErrorCode = 'NAVIGATEUR_INCOMPATIBLE' | 'INVALID_TOKEN' | 'UNKNOWN_CARD';

export type VerifyOutcome =
  | { status: 'verified'; cardRef: string; card: CardInfo }
  | { status: 'refused'; card: CardInfo | null; refusalCode: RefusalCode; refusalMessage: string }
  | { status: 'error'; code: AcquirerErrorCode; message: string };

export interface OperationResult {
  ok: boolean;
  /** A done capture: the connector's record of it (Keep). */
  keep?: Keep;
  /** Why it was not done (not found, wrong state, amount too large). */
  reason?: string;
}

/** A refund the acquirer knows, by the caller's reference. */
export interface RefundView {
  reference: string;
  authorizationId: string;
  amount: number;
  /** succeeded: the money went back to the card; refused: nothing was refunded (`reason` says why). */
  status: 'succeeded' | 'refused';
  reason: string | null;
  createdAt: string;
}

export interface RefundInput {
  mode: Mode;
  authorizationId: string;
  amount: number;
  /**
   * Idempotency reference (Motu's `re_` id). A second call with the same reference returns the first call's
   * result and never refunds twice, so an interrupted refund can always be retried.
   */
  reference: string;
}

export interface AuthorizationView {
  id: string;
  merchantReference: string;
  status: 'challenge' | 'authorized' | 'refused' | 'captured' | 'cancelled';
  amount: number;
  currency: string;
  capturedAmount: number;
  refundedAmount: number;
  card: CardInfo;
  refusalCode: RefusalCode | null;
  createdAt: string;
  capturedAt: string | null;
  /** How 3-D Secure went, when the acquirer tells: no challenge, a challenge still open, or its result. */
  threeDSecure?: 'frictionless' | 'challenge_pending' | 'authenticated' | 'failed';
}

export interface DisputeNotice {
  authorizationId: string;
  merchantReference: string;
  kind: 'chargeback' | 'inquiry';
  /** One of Motu's dispute reasons (the acquirer's own codes mapped). */
  reason: string;
  /** Minor units of the payment's currency. */
  amount: number;
  notifiedAt: string;
}

export interface SettlementLine {
  authorizationId: string;
  merchantReference: string;
  capturedAmount: number;
  currency: string;
  capturedAt: string;
  /** When the acquirer paid the funds. */
  settledAt: string;
}

/**
 * What an acquirer whose records are rows of Motu's own database (the simulator) offers beyond `Acquirer`: its
 * authorization and its capture written on a transaction of the caller's, so that they commit with Motu's record of
 * the same answer (the card attempt, the payment's transition, its event) or not at all. A remote acquirer's record
 * stands whatever Motu does after it answered, which is why the checkout and the capture otherwise commit their steps
 * apart (the attempt counted before the bank is asked, a claim before a capture, the answer recorded after); here the
 * bank's record is one more row of the same transaction, and there is nothing to recover when a step fails.
 */
export interface LocalRecords {
  /** Whether its rows are in `db`: only a transaction of that database may carry them. */
  sharesDatabase(db: Database): boolean;
  /**
   * authorize, on `trx` (spending the token, writing the authorization): an answer of the same meaning. No `reference`
   * (idempotency references stay with `authorize`, which reads a concurrent call's authorization back).
   */
  authorizeIn(trx: Kysely<DB>, input: AuthorizeInput): Promise<AuthorizationOutcome>;
  /**
   * capture as one statement on `trx`, for the caller to send along with its own record of it (src/db/compiled.ts,
   * `alongside`: on PostgreSQL one round trip for both), and what its answer (the rows it changed) means; a refusal
   * undoes the caller's transaction. `amount`: a positive integer, at most what was authorized (the caller's claim
   * checked both).
   */
  captureStatement(trx: Kysely<DB>, input: { mode: Mode; authorizationId: string; amount: number }): {
    statement: BoundStatement<unknown>;
    answer(changed: number): OperationResult;
  };
  /**
   * listAttempts as one statement on `trx`, and what makes its answer from the rows: read after the caller's writes
   * of the transaction (a capture's answer lists the attempts as its transaction commits them).
   */
  attemptsIn(trx: Kysely<DB>, mode: Mode, merchantReference: string): { statement: BoundStatement<unknown>; answer(rows: unknown[]): AuthorizationView[] };
}

/** The acquirer's LocalRecords when its rows are in `db`, for a caller that writes there; undefined otherwise. */
export function localRecords(acquirer: Acquirer, db: Database): LocalRecords | undefined {
  return acquirer.local?.sharesDatabase(db) ? acquirer.local : undefined;
}

/** `authorize` for the widget token a `readWidget` read (the input's source is that token). */
export type WidgetAuthorize = (input: AuthorizeInput) => Promise<AuthorizationOutcome>;

export interface Acquirer {
  readonly name: string;
  /** Present when its records are rows of Motu's own database (LocalRecords). */
  readonly local?: LocalRecords;
  /**
   * Its card tokens come from the acquirer's own widget, where the card was already authorized or refused: authorize
   * with one reads that outcome (the same each time) rather than making an authorization. A card attempt is then
   * spent when the outcome is recorded, not before a call that only reads it. Absent: a token is authorized by the call.
   */
  readonly widgetTokens?: boolean;
  /**
   * A widget acquirer's record of `token` read on `q`, with the caller's other reads (readTogether: on SQLite the
   * connection taken once for all of them); answers the authorize for that token, which does not read it again.
   */
  readWidget?(q: Kysely<DB>, mode: Mode, token: string): Promise<WidgetAuthorize>;
  /** `slot`: spent before the card is kept, whatever the answer (a number refused included); none for a connector that takes no card here. */
  tokenize(input: TokenizeInput, slot?: TokenSlot): Promise<TokenizeResult>;
  /** Card details behind a token or a saved card reference, without consuming the token. */
  describe(mode: Mode, source: CardSource): Promise<CardInfo | null>;
  /** Zero-amount verification (ACCOUNT_VERIFICATION): no authorization, nothing to refund; keeps the card. */
  verify(input: { mode: Mode; token: string }): Promise<VerifyOutcome>;
  authorize(input: AuthorizeInput): Promise<AuthorizationOutcome>;
  /** After the bank page: the authorization's final outcome (authorized or refused authentication_failed). */
  completeChallenge(mode: Mode, authorizationId: string): Promise<AuthorizationOutcome>;
  capture(input: { mode: Mode; authorizationId: string; amount: number }): Promise<OperationResult>;
  cancel(input: { mode: Mode; authorizationId: string }): Promise<OperationResult>;
  refund(input: RefundInput): Promise<OperationResult>;
  /** The refund made with this reference, or null when the acquirer never received it. */
  getRefund(mode: Mode, reference: string): Promise<RefundView | null>;
  getAuthorization(mode: Mode, authorizationId: string): Promise<AuthorizationView | null>;
  /** Attempts made for one merchant reference (Motu payment id), oldest first, as the acquirer has them now: what recovery decides on. */
  listAuthorizations(mode: Mode, merchantReference: string): Promise<AuthorizationView[]>;
  /**
   * The same attempts for display (a payment's detail, its timeline): an acquirer that keeps what it answered Motu
   * answers from there without asking the acquirer again, and leaves out what it cannot tell now instead of failing.
   */
  listAttempts(mode: Mode, merchantReference: string): Promise<AuthorizationView[]>;
  /**
   * listAttempts as one statement on `db` and what makes its answer from the rows, for an acquirer whose attempts are
   * rows of that database and nothing else (the simulator): the caller reads them with its own (readAll). Undefined
   * when they are not (then listAttempts).
   */
  attemptsStatement?(db: Kysely<DB>, mode: Mode, merchantReference: string): { statement: BoundStatement<unknown>; answer(rows: unknown[]): AuthorizationView[] } | undefined;
  /** Captures whose funds were settled in [from, to). */
  settlementReport(input: { mode: Mode; from: Date; to: Date }): Promise<SettlementLine[]>;
  /** Disputes the card schemes notified in [from, to): chargebacks and inquiries on captured payments. */
  disputeNotices(input: { mode: Mode; from: Date; to: Date }): Promise<DisputeNotice[]>;
  /** The network a card is routed on: CB when co-badged. */
  chooseNetwork(networks: CardNetwork[]): CardNetwork;
}
