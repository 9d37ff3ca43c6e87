// The Acquirer interface over Monext's Retail API, for one contract (its credentials). Card numbers never reach
// Motu: the cardholder types the card, chooses the CB network of a co-badged card and passes 3-D Secure in Monext's
// widget, which authorizes; Motu holds the widget session's token and reads the outcome back (authorize/verify with
// { token }). Merchant-initiated charges use the card Monext keeps in a wallet (cardRef). Authorization ids given to
// Motu are `<contract id>.<Monext transaction id>`, so every later call finds its contract without a database read.
//
// Recovery: an answer lost on the way (timeout, 5xx, an unreadable body) throws MonextUnavailable and nothing final is
// recorded; the state is read back from Monext (GET transaction, GET session). Monext offers no idempotency key, so
// the connector keeps its own rows (monext_authorizations, monext_refunds), written before each call.
//
// Each concern has its file: widget sessions (monext.widget.ts), reading outcomes (monext.outcomes.ts), money
// movements (monext.money.ts), merchant-initiated charges (monext.mit.ts), settlement (monext.settlement.ts).
import type { Database } from '../../db/database.js';
import type { Mode } from '../../modules/merchants/merchants.table.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type {
  Acquirer, AuthorizationOutcome, AuthorizationView, AuthorizeInput, CardInfo, CardNetwork, CardSource, DisputeNotice, Keep,
  OperationResult, RefundInput, RefundView, SettlementLine, TokenizeInput, TokenizeResult, VerifyOutcome,
} from '../acquirer.js';
import { chooseNetwork } from '../cards.js';
import { MonextClient, type MonextClientOptions } from './monext.client.js';
import type { MonextCredentials } from './monext.config.js';
import type { AttemptRow, MonextContext, WidgetRow } from './monext.context.js';
import { authorizeDirect } from './monext.mit.js';
import { cancel, capture, getAuthorization, getRefund, refund } from './monext.money.js';
import { attemptOf, attemptRows, outcomeOfView, parseCardRef, readSession, splitAuthorizationId } from './monext.outcomes.js';
import { settlementReport } from './monext.settlement.js';
import { sessionOutcome, sessionRow, startCardEntry, verifySession, type CardEntry, type CardEntryInput } from './monext.widget.js';

export type { AttemptRow, WidgetRow } from './monext.context.js';
export { attemptRows, splitAuthorizationId } from './monext.outcomes.js';
export type { CardEntry, CardEntryInput } from './monext.widget.js';
export { sessionRowOfAnyContract } from './monext.widget.js';

export class MonextAcquirer implements Acquirer {
  readonly name = 'monext';
  readonly widgetTokens = true;
  private readonly ctx: MonextContext;

  get environment(): string {
    return this.ctx.credentials.environment;
  }

  constructor(db: Database, clock: Clock, readonly contractId: string, credentials: MonextCredentials, clientOptions: MonextClientOptions) {
    this.ctx = { db, clock, contractId, credentials, clientOptions, client: new MonextClient(credentials, clientOptions) };
  }

  chooseNetwork(networks: CardNetwork[]): CardNetwork {
    return chooseNetwork(networks); // the widget offers the choice; CB by default
  }

  async tokenize(_input: TokenizeInput): Promise<TokenizeResult> {
    throw new AppError('BUSINESS_RULE_VIOLATION', "Live cards are typed in Monext's secure widget: Motu's card fields serve test mode only");
  }

  async describe(_mode: Mode, source: CardSource): Promise<CardInfo | null> {
    if ('cardRef' in source) return parseCardRef(source.cardRef)?.card ?? null;
    return null;
  }

  startCardEntry(input: CardEntryInput, along?: Keep): Promise<CardEntry> {
    return startCardEntry(this.ctx, input, along);
  }

  verify(input: { mode: Mode; token: string }, known?: WidgetRow): Promise<VerifyOutcome> {
    return verifySession(this.ctx, input.mode, input.token, known);
  }

  /** `known`: the widget session's row when the caller already read it (the router, to find the contract). */
  async authorize(input: AuthorizeInput, known?: WidgetRow): Promise<AuthorizationOutcome> {
    if ('cardRef' in input.source) return authorizeDirect(this.ctx, input, input.source.cardRef);
    const token = input.source.token;
    const row = known ?? await sessionRow(this.ctx, input.mode, token);
    if (!row || row.merchant_reference !== input.merchantReference || row.amount !== input.amount || row.currency !== input.currency) {
      return { status: 'error', code: 'INVALID_TOKEN', message: 'The Monext session is unknown, or was made for another payment or amount' };
    }
    return sessionOutcome(this.ctx, token, input.saveCard && row.wallet_id ? row.wallet_id : null, row);
  }

  async completeChallenge(_mode: Mode, authorizationId: string): Promise<AuthorizationOutcome> {
    const parsed = splitAuthorizationId(authorizationId);
    if (parsed?.session) return sessionOutcome(this.ctx, parsed.session);
    if (!parsed) return { status: 'error', code: 'INVALID_TOKEN', message: 'Unknown authorization' };
    const view = await this.getAuthorization(_mode, authorizationId);
    if (!view) return { status: 'error', code: 'INVALID_TOKEN', message: 'Unknown authorization' };
    return outcomeOfView(view);
  }

  capture(input: { mode: Mode; authorizationId: string; amount: number }): Promise<OperationResult> {
    return capture(this.ctx, input);
  }

  cancel(input: { mode: Mode; authorizationId: string }): Promise<OperationResult> {
    return cancel(this.ctx, input);
  }

  refund(input: RefundInput): Promise<OperationResult> {
    return refund(this.ctx, input);
  }

  getRefund(mode: Mode, reference: string): Promise<RefundView | null> {
    return getRefund(this.ctx, mode, reference);
  }

  /** Monext's record of the authorization (a call); a capture or cancel found there that the attempt's row lacks is kept. */
  getAuthorization(_mode: Mode, authorizationId: string): Promise<AuthorizationView | null> {
    return getAuthorization(this.ctx, authorizationId);
  }

  /**
   * The attempts as Monext answered them to Motu, for a payment's detail: from the connector's rows, without a call.
   * An attempt whose outcome Motu has not heard yet (a widget session not read, an answer lost) is read from Monext;
   * when Monext cannot answer it is left out rather than failing the read.
   */
  async listAttempts(mode: Mode, merchantReference: string, read?: AttemptRow[]): Promise<AuthorizationView[]> {
    const rows = read ?? await attemptRows(this.ctx.db, mode, merchantReference, this.contractId);
    const out: AuthorizationView[] = [];
    for (const row of rows) {
      if (row.card !== null && row.transaction_id !== null && !row.transaction_id.startsWith('wallet:')) {
        out.push(attemptOf(`${this.contractId}.${row.transaction_id}`, row));
        continue;
      }
      try {
        const view = await this.readAttempt(row);
        if (view) out.push(view);
      } catch (err) {
        if (!(err instanceof AppError)) throw err; // MonextUnavailable, or Monext refusing the read
      }
    }
    return out;
  }

  /** Every attempt as Monext has it now (a call or two each): what recovery decides on. */
  async listAuthorizations(mode: Mode, merchantReference: string): Promise<AuthorizationView[]> {
    const rows = await this.ctx.db.kysely.selectFrom('monext_authorizations').selectAll()
      .where('merchant_reference', '=', merchantReference).where('contract_id', '=', this.contractId).where('mode', '=', mode)
      .orderBy('created_at').orderBy('id').execute();
    const out: AuthorizationView[] = [];
    for (const row of rows) {
      const view = await this.readAttempt(row);
      if (view) out.push(view);
    }
    return out;
  }

  /** One attempt as Monext has it now (calls); null when Monext holds no transaction for it. */
  private async readAttempt(row: WidgetRow): Promise<AuthorizationView | null> {
    let transactionId = row.transaction_id && !row.transaction_id.startsWith('wallet:') ? row.transaction_id : null;
    if (!transactionId && row.kind === 'session') {
      const read = await readSession(this.ctx, row.reference).catch(() => null);
      if (read && (read.kind === 'authorized' || read.kind === 'refused')) transactionId = read.transactionId;
    }
    if (!transactionId) return null;
    return getAuthorization(this.ctx, `${this.contractId}.${transactionId}`);
  }

  settlementReport(input: { mode: Mode; from: Date; to: Date }): Promise<SettlementLine[]> {
    return settlementReport(this.ctx, input);
  }

  /** Chargebacks come from Monext's dispute files, not its REST API (docs/live.md). */
  async disputeNotices(_input: { mode: Mode; from: Date; to: Date }): Promise<DisputeNotice[]> {
    return [];
  }
}
