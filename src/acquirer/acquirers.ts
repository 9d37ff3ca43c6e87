// Which acquirer serves which payment. Test mode is always the simulator. Live mode goes to the acquirer of the
// payment's contract (`contracts.acquirer`, migration 0034): Monext's Retail API for a contract configured with its
// credentials (docs/live.md); a contract without a connector answers every live card operation 503
// ACQUIRER_NOT_CONFIGURED, as before. The live acquirer is a router: each call finds its contract from what it is
// given (an authorization id starts with its contract id, a widget token and a refund reference were recorded with
// theirs, a saved card reference carries its own), so the simulator path never pays for it.
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { ReferenceCache } from '../db/reference-cache.js';
import type { Mode } from '../modules/merchants/merchants.table.js';
import type { Clock } from '../shared/clock.js';
import { AppError } from '../shared/errors.js';
import type { SecretBox } from '../shared/secret-box.js';
import type {
  Acquirer, AuthorizationOutcome, AuthorizationView, AuthorizeInput, CardInfo, CardNetwork, CardSource, DisputeNotice,
  OperationResult, RefundInput, RefundView, SettlementLine, TokenizeInput, TokenizeResult, VerifyOutcome, WidgetAuthorize,
} from './acquirer.js';
import { keepAlone, type Keep } from './acquirer.js';
import { chooseNetwork } from './cards.js';
import { attemptRows, MonextAcquirer, sessionRowOfAnyContract, splitAuthorizationId, type AttemptRow, type CardEntry, type CardEntryInput, type WidgetRow } from './monext/monext.acquirer.js';
import { openCredentials } from './monext/monext.config.js';
import { MonextUnavailable } from './monext/monext.client.js';
import { SimulatorAcquirer } from './simulator/simulator.js';

export interface MonextOptions {
  /** MOTU_MONEXT_API_URL: replaces Monext's base URL (tests: the fake Monext on 127.0.0.1). */
  baseUrl?: string;
  /** MOTU_MONEXT_WIDGET_URL: replaces the origin Monext's widget script and style come from (tests: the fake). */
  widgetUrl?: string;
  /** MOTU_MONEXT_TIMEOUT_MS: the longest Monext call (default 30 s); keep it under MOTU_OPERATION_CLAIM_SECONDS. */
  timeoutMs?: number;
  /** MOTU_MONEXT_SETTLEMENT_DELAY: seconds from a capture to Monext's remittance (default one day). */
  settlementDelaySeconds?: number;
}

const NOT_CONFIGURED =
  'Live payments need an acquirer connector, and none is configured for this contract. Use a test key (sk_test_…) or connect the contract to Monext (motu contracts update --acquirer monext, docs/live.md).';

export function notConfigured(): AppError {
  return new AppError('ACQUIRER_NOT_CONFIGURED', NOT_CONFIGURED);
}

/** 503 for a live card sent to Motu's own fields: a live acquirer connector (Monext) takes cards in its own widget. */
export function liveCardsElsewhere(): AppError {
  return new AppError('ACQUIRER_NOT_CONFIGURED',
    "Live cards are never typed in Motu's card fields: a live acquirer connector (Monext) takes them in its own secure widget (docs/live.md).");
}

export class Acquirers {
  readonly simulator: SimulatorAcquirer;
  private readonly live: Acquirer;
  readonly monext: LiveRouter;
  /** Contracts are reference rows: read once per change (Database.referenceStamp), not once per live call. */
  private readonly reference: ReferenceCache;

  constructor(
    private readonly db: Database,
    clock: Clock,
    options: { publicUrl: string; settlementDelaySeconds: number; live?: Acquirer; box?: SecretBox; monext?: MonextOptions },
  ) {
    this.simulator = new SimulatorAcquirer(db, clock, options);
    this.reference = new ReferenceCache(db);
    this.monext = new LiveRouter(db, clock, options.box ?? null, this.reference, {
      baseUrl: options.monext?.baseUrl, widgetUrl: options.monext?.widgetUrl, timeoutMs: options.monext?.timeoutMs ?? 30_000,
      settlementDelaySeconds: options.monext?.settlementDelaySeconds,
    });
    this.live = options.live ?? this.monext;
  }

  /** The acquirer for an environment: live mode is the router over each contract's connector. */
  forMode(mode: Mode): Acquirer {
    return mode === 'test' ? this.simulator : this.live;
  }

  /**
   * 503 ACQUIRER_NOT_CONFIGURED before anything is written when a live request cannot reach any acquirer: the given
   * contract has no connector, or (no contract given) none of the merchant's contracts has one. Test mode: nothing
   * to check, no database read.
   */
  async requireLive(owner: { merchantId: string; mode: Mode }, contractId?: string): Promise<void> {
    if (owner.mode === 'test' || this.live !== this.monext) return;
    const connected = await this.reference.get(`live-acquirer:${owner.merchantId}:${contractId ?? ''}`, async () => {
      let q = this.db.kysely.selectFrom('contracts').select('id').where('merchant_id', '=', owner.merchantId)
        .where('acquirer', '=', 'monext').where('acquirer_config_sealed', 'is not', null);
      if (contractId) q = q.where('id', '=', contractId);
      return Boolean(await q.executeTakeFirst());
    });
    if (!connected) throw notConfigured();
  }

  /** Live jobs run: the router answers for every contract (nothing to read for a contract without a connector). */
  liveConfigured(): boolean {
    return true;
  }
}

/** Live mode: each call goes to its contract's connector. */
export class LiveRouter implements Acquirer {
  readonly name = 'live';
  /** Every live card is typed in the connector's widget (Monext's), which authorizes it. */
  readonly widgetTokens = true;
  private readonly connectors = new Map<string, { sealed: string; acquirer: MonextAcquirer }>();

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly box: SecretBox | null,
    private readonly reference: ReferenceCache,
    private readonly options: { baseUrl?: string; widgetUrl?: string; timeoutMs: number; settlementDelaySeconds?: number },
  ) {}

  /** The Monext connector of a contract; 503 ACQUIRER_NOT_CONFIGURED when it has none. */
  async connector(contractId: string): Promise<MonextAcquirer> {
    const row = await this.reference.get(`acquirer-config:${contractId}`, () => this.db.kysely.selectFrom('contracts')
      .select(['acquirer', 'acquirer_config_sealed']).where('id', '=', contractId).executeTakeFirst());
    if (!row || row.acquirer !== 'monext' || !row.acquirer_config_sealed || !this.box) throw notConfigured();
    const cached = this.connectors.get(contractId);
    if (cached && cached.sealed === row.acquirer_config_sealed) return cached.acquirer;
    const credentials = openCredentials(this.box, row.acquirer_config_sealed);
    if (!credentials) throw notConfigured();
    const acquirer = new MonextAcquirer(this.db, this.clock, contractId, credentials, this.options);
    this.connectors.set(contractId, { sealed: row.acquirer_config_sealed, acquirer });
    return acquirer;
  }

  /** The connector, or null for a contract without one (reads answer "nothing there": nothing could have reached an acquirer). */
  private async connectorOrNull(contractId: string): Promise<MonextAcquirer | null> {
    try {
      return await this.connector(contractId);
    } catch (err) {
      if (err instanceof AppError && err.code === 'ACQUIRER_NOT_CONFIGURED') return null;
      throw err;
    }
  }

  /** A widget session's connector, with its row (read once: the connector does not read it again). */
  private async byToken(mode: Mode, token: string): Promise<{ connector: MonextAcquirer; row: WidgetRow } | null> {
    const row = await sessionRowOfAnyContract(this.db.kysely, mode, token);
    return row ? { connector: await this.connector(row.contract_id), row } : null;
  }

  private byAuthorization(authorizationId: string): Promise<MonextAcquirer> {
    const parsed = splitAuthorizationId(authorizationId);
    if (!parsed) throw notConfigured();
    return this.connector(parsed.contractId);
  }

  /** A widget session for a payment or a card registration, on the given contract's connector. */
  async startCardEntry(contractId: string, input: CardEntryInput, along?: Keep): Promise<CardEntry & { environment: string }> {
    const connector = await this.connector(contractId);
    return { ...(await connector.startCardEntry(input, along)), environment: connector.environment };
  }

  /**
   * Gives back a widget's authorization Motu will not keep: the cardholder finished a widget after the payment was
   * paid another way, expired, or closed (Monext's widget authorizes on its own, whatever Motu's session says).
   * Cancelled when uncaptured, else refunded under `release_<id>`. `keep`: the payment's own authorization, left alone.
   * `paymentId`: the payment the caller's session is for; a token of another payment's widget is left alone.
   */
  async releaseWidget(mode: Mode, token: string, paymentId: string, keep: string | null): Promise<'released' | 'kept' | 'none'> {
    const found = await this.byToken(mode, token);
    if (!found || found.row.amount === 0 || found.row.merchant_reference !== paymentId) return 'none';
    // The widget's outcome is recorded already, and it is the payment's own authorization: the usual case of Monext's
    // notification and its return, which follow every widget payment the page's pay call recorded first. Nothing to
    // ask Monext (its session, once accepted, takes no other card) and nothing to write: the row left `created` in the
    // transaction that gave the payment this authorization.
    const { row } = found;
    if (keep !== null && row.state === 'authorized' && row.transaction_id !== null && `${row.contract_id}.${row.transaction_id}` === keep) return 'kept';
    const outcome = await found.connector.authorize({
      mode, source: { token }, amount: found.row.amount, currency: found.row.currency, merchantReference: found.row.merchant_reference,
    }, found.row);
    if (outcome.status !== 'authorized') return 'none';
    await keepAlone(this.db, outcome.keep);
    if (outcome.authorizationId === keep) return 'kept';
    if (!outcome.captured) {
      const done = await found.connector.cancel({ mode, authorizationId: outcome.authorizationId });
      if (!done.ok) throw new AppError('SERVICE_UNAVAILABLE', `Monext did not cancel ${outcome.authorizationId}: ${done.reason ?? 'refused'}`);
      return 'released';
    }
    const view = await found.connector.getAuthorization(mode, outcome.authorizationId);
    const left = view ? view.capturedAmount - view.refundedAmount : 0;
    if (left > 0) await found.connector.refund({ mode, authorizationId: outcome.authorizationId, amount: left, reference: `release_${outcome.authorizationId}` });
    return 'released';
  }

  chooseNetwork(networks: CardNetwork[]): CardNetwork {
    return chooseNetwork(networks);
  }

  async tokenize(_input: TokenizeInput): Promise<TokenizeResult> {
    throw liveCardsElsewhere();
  }

  async describe(mode: Mode, source: CardSource): Promise<CardInfo | null> {
    if ('token' in source) return null;
    const contractId = source.cardRef.split('.')[1];
    const connector = contractId ? await this.connectorOrNull(contractId) : null;
    return connector ? connector.describe(mode, source) : null;
  }

  async verify(input: { mode: Mode; token: string }): Promise<VerifyOutcome> {
    const found = await this.byToken(input.mode, input.token);
    if (!found) return { status: 'error', code: 'INVALID_TOKEN', message: 'The Monext session is unknown' };
    return found.connector.verify(input, found.row);
  }

  async readWidget(q: Kysely<DB>, mode: Mode, token: string): Promise<WidgetAuthorize> {
    const row = await sessionRowOfAnyContract(q, mode, token);
    return async (input) => {
      if (!row) return { status: 'error', code: 'INVALID_TOKEN', message: 'The Monext session is unknown' };
      return (await this.connector(row.contract_id)).authorize(input, row);
    };
  }

  async authorize(input: AuthorizeInput): Promise<AuthorizationOutcome> {
    if ('token' in input.source) return (await this.readWidget(this.db.kysely, input.mode, input.source.token))(input);
    const contractId = input.source.cardRef.startsWith('mx1.') ? input.source.cardRef.split('.')[1] : undefined;
    if (!contractId) return { status: 'error', code: 'UNKNOWN_CARD', message: 'The saved card is not kept by a live acquirer' };
    return (await this.connector(contractId)).authorize(input);
  }

  async completeChallenge(mode: Mode, authorizationId: string): Promise<AuthorizationOutcome> {
    return (await this.byAuthorization(authorizationId)).completeChallenge(mode, authorizationId);
  }

  async capture(input: { mode: Mode; authorizationId: string; amount: number }): Promise<OperationResult> {
    return (await this.byAuthorization(input.authorizationId)).capture(input);
  }

  async cancel(input: { mode: Mode; authorizationId: string }): Promise<OperationResult> {
    return (await this.byAuthorization(input.authorizationId)).cancel(input);
  }

  async refund(input: RefundInput): Promise<OperationResult> {
    return (await this.byAuthorization(input.authorizationId)).refund(input);
  }

  async getRefund(mode: Mode, reference: string): Promise<RefundView | null> {
    const row = await this.db.kysely.selectFrom('monext_refunds').select('contract_id').where('reference', '=', reference).where('mode', '=', mode).executeTakeFirst();
    if (!row) return null;
    const connector = await this.connectorOrNull(row.contract_id);
    return connector ? connector.getRefund(mode, reference) : null;
  }

  async getAuthorization(mode: Mode, authorizationId: string): Promise<AuthorizationView | null> {
    const parsed = splitAuthorizationId(authorizationId);
    const connector = parsed ? await this.connectorOrNull(parsed.contractId) : null;
    return connector ? connector.getAuthorization(mode, authorizationId) : null;
  }

  async listAuthorizations(mode: Mode, merchantReference: string): Promise<AuthorizationView[]> {
    const contracts = await this.db.kysely.selectFrom('monext_authorizations').select('contract_id').distinct()
      .where('merchant_reference', '=', merchantReference).where('mode', '=', mode).execute();
    const out: AuthorizationView[] = [];
    for (const { contract_id } of contracts) {
      const connector = await this.connectorOrNull(contract_id);
      if (connector) out.push(...await connector.listAuthorizations(mode, merchantReference));
    }
    return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** Read in one query for every contract, each contract's rows then shown by its connector. */
  async listAttempts(mode: Mode, merchantReference: string): Promise<AuthorizationView[]> {
    const byContract = new Map<string, AttemptRow[]>();
    for (const row of await attemptRows(this.db, mode, merchantReference)) {
      const rows = byContract.get(row.contract_id);
      if (rows) rows.push(row);
      else byContract.set(row.contract_id, [row]);
    }
    const out: AuthorizationView[] = [];
    for (const [contractId, rows] of byContract) {
      const connector = await this.connectorOrNull(contractId);
      if (!connector) continue;
      out.push(...await connector.listAttempts(mode, merchantReference, rows));
    }
    return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** Every connected contract's settlement (MonextAcquirer.settlementReport); a contract Monext cannot answer for now waits for the next run. */
  async settlementReport(input: { mode: Mode; from: Date; to: Date }): Promise<SettlementLine[]> {
    const contracts = await this.db.kysely.selectFrom('contracts').select('id')
      .where('acquirer', '=', 'monext').where('acquirer_config_sealed', 'is not', null).orderBy('id').execute();
    const lines: SettlementLine[] = [];
    for (const { id } of contracts) {
      const connector = await this.connectorOrNull(id);
      if (!connector) continue;
      try {
        lines.push(...await connector.settlementReport(input));
      } catch (err) {
        if (!(err instanceof MonextUnavailable)) throw err;
      }
    }
    return lines;
  }

  async disputeNotices(_input: { mode: Mode; from: Date; to: Date }): Promise<DisputeNotice[]> {
    return [];
  }
}
