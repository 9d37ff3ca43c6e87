// Disputes as the merchant sees them (list, read, evidence, accept), the test helper that opens one, and the
// operator's live routes (open, close). The moves themselves, with their money and events, are in
// src/modules/payment-transitions/disputes.ts; the time-driven ones (the acquirer's notices, the evidence deadline,
// the simulated bank's decision) in disputes.jobs.ts.
import type { Database, Trx } from '../../db/database.js';
import { addSeconds, type Clock } from '../../shared/clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import { allRows, paginate, type PageRequest } from '../../shared/pagination.js';
import type { Owner } from '../merchants/principal.js';
import { ownedBy } from '../merchants/scope.js';
import { moveDispute, openDispute } from '../payment-transitions/disputes.js';
import { ownedPayment } from '../payments/payments.repository.js';
import { testModeOnly } from '../test-clocks/test-clocks.service.js';
import { EVIDENCE_FIELDS, type DisputeKind, type DisputeRow, type DisputeStatus, type Evidence } from './disputes.table.js';

/** Test mode: seconds from submitted evidence to the simulated bank's decision. */
export const TEST_DECISION_SECONDS = 2;

export function disputeView(row: DisputeRow) {
  return {
    id: row.id,
    paymentId: row.payment_id,
    kind: row.kind,
    reason: row.reason,
    amount: row.amount,
    currency: row.currency,
    amountEur: row.amount_eur,
    status: row.status,
    evidenceDueBy: row.evidence_due_by,
    evidence: row.evidence ? (JSON.parse(row.evidence) as Evidence) : {},
    evidenceSubmittedAt: row.evidence_submitted_at,
    createdAt: row.created_at,
    closedAt: row.closed_at,
  };
}

export interface DisputeListQuery extends PageRequest {
  status?: DisputeStatus;
  paymentId?: string;
}

export interface EvidenceInput extends Evidence {
  submit: boolean;
}

export interface OpenInput {
  kind?: DisputeKind;
  reason?: string;
  amount?: number;
}

const OPEN: Record<DisputeKind, DisputeStatus> = { chargeback: 'needs_response', inquiry: 'warning_needs_response' };
const REVIEW: Record<DisputeKind, DisputeStatus> = { chargeback: 'under_review', inquiry: 'warning_under_review' };
const CLOSED: readonly DisputeStatus[] = ['won', 'lost', 'warning_closed'];

export class DisputesService {
  constructor(private readonly db: Database, private readonly clock: Clock) {}

  private mine(q: Database['kysely'] | Trx, owner: Owner) {
    return q.selectFrom('disputes').selectAll().where(ownedBy(owner, { store: true }));
  }

  private async find(owner: Owner, id: string): Promise<DisputeRow> {
    const row = await this.mine(this.db.kysely, owner).where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('dispute', id);
    return row;
  }

  private filtered(owner: Owner, query: Omit<DisputeListQuery, keyof PageRequest>) {
    let q = this.mine(this.db.kysely, owner);
    if (query.status) q = q.where('status', '=', query.status);
    if (query.paymentId) q = q.where('payment_id', '=', query.paymentId);
    return q;
  }

  /** Every matching dispute, newest first, a batch at a time (the CSV export). */
  batches(owner: Owner, query: Omit<DisputeListQuery, keyof PageRequest>) {
    return allRows(this.filtered(owner, query));
  }

  async list(owner: Owner, query: DisputeListQuery) {
    const q = this.filtered(owner, query);
    const page = await paginate(q, query, (id) => this.mine(this.db.kysely, owner).where('id', '=', id).executeTakeFirst());
    return { data: page.data.map(disputeView), hasMore: page.hasMore };
  }

  async get(owner: Owner, id: string) {
    return disputeView(await this.find(owner, id));
  }

  /** Saves evidence (merged into the draft); `submit: true` sends it, once: the dispute goes under review. */
  async submitEvidence(owner: Owner, id: string, input: EvidenceInput) {
    const now = this.clock.now();
    const row = await this.db.transaction(async (trx) => {
      // The draft is read and merged with the dispute's row locked (PostgreSQL; SQLite's single writer serializes
      // transactions already): concurrent drafts of different fields all land, none writes over another's merge.
      const current = await this.db.lockForUpdate(this.mine(trx, owner).where('id', '=', id)).executeTakeFirst();
      if (!current) throw notFound('dispute', id);
      refuseClosedOrSubmitted(current);
      const evidence: Evidence = current.evidence ? JSON.parse(current.evidence) : {};
      for (const field of EVIDENCE_FIELDS) if (input[field] !== undefined) evidence[field] = input[field];
      const text = JSON.stringify(evidence);
      if (!input.submit) {
        await trx.updateTable('disputes').set({ evidence: text, updated_at: now.toISOString() }).where('id', '=', id).execute();
        return trx.selectFrom('disputes').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      }
      // Test mode: the simulated bank decides by the text, a moment later; other evidence waits for the operator.
      const decision = current.mode === 'test' ? testDecision(evidence.uncategorizedText) : null;
      return moveDispute(trx, {
        disputeId: id, from: [OPEN[current.kind]], to: REVIEW[current.kind], at: now,
        set: {
          evidence: text, evidence_submitted_at: now.toISOString(),
          ...(decision ? { test_outcome: decision, test_outcome_at: addSeconds(now, TEST_DECISION_SECONDS).toISOString() } : {}),
        },
      });
    });
    if (!row) refuseClosedOrSubmitted(await this.find(owner, id));
    return disputeView(row ?? (await this.find(owner, id)));
  }

  /** The merchant gives up: a chargeback is lost at once, an inquiry closed. */
  async accept(owner: Owner, id: string) {
    const current = await this.find(owner, id);
    refuseClosedOrSubmitted(current);
    const to: DisputeStatus = current.kind === 'chargeback' ? 'lost' : 'warning_closed';
    const row = await this.db.transaction((trx) => moveDispute(trx, { disputeId: id, from: [OPEN[current.kind]], to, at: this.clock.now() }));
    if (!row) refuseClosedOrSubmitted(await this.find(owner, id));
    return disputeView(row ?? (await this.find(owner, id)));
  }

  /** Test helper: a dispute on one of the caller's captured test payments. */
  async openForTest(owner: Owner, paymentId: string, input: OpenInput) {
    testModeOnly(owner);
    const payment = await ownedPayment(this.db.kysely, owner, paymentId).executeTakeFirst();
    if (!payment) throw notFound('payment', paymentId);
    return this.open(payment.id, input);
  }

  /** The operator opens a dispute the bank reported (live mode, or any payment). */
  async openByOperator(paymentId: string, input: OpenInput) {
    const payment = await this.db.kysely.selectFrom('payments').select('id').where('id', '=', paymentId).executeTakeFirst();
    if (!payment) throw notFound('payment', paymentId);
    return this.open(paymentId, input);
  }

  private async open(paymentId: string, input: OpenInput) {
    const row = await this.db.transaction((trx) => openDispute(trx, {
      paymentId, kind: input.kind ?? 'chargeback', reason: input.reason ?? 'general', amount: input.amount, at: this.clock.now(),
    }));
    if (!row) {
      const p = await this.db.kysely.selectFrom('payments').select(['status', 'captured_amount', 'refunded_amount', 'refund_reserved', 'disputed_amount', 'currency'])
        .where('id', '=', paymentId).executeTakeFirstOrThrow();
      const left = p.captured_amount - p.refunded_amount - p.refund_reserved - p.disputed_amount;
      throw new AppError('PAYMENT_NOT_DISPUTABLE', left > 0
        ? `Payment ${paymentId} has ${left} ${p.currency} left to dispute`
        : `Payment ${paymentId} is ${p.status}: nothing captured is left to dispute`, { status: p.status, disputable: Math.max(0, left), currency: p.currency });
    }
    return disputeView(row);
  }

  /** The operator records the bank's decision on a dispute: a chargeback won or lost; an inquiry closed. */
  async closeByOperator(id: string, outcome: 'won' | 'lost') {
    const current = await this.db.kysely.selectFrom('disputes').selectAll().where('id', '=', id).executeTakeFirst();
    if (!current) throw notFound('dispute', id);
    if (CLOSED.includes(current.status)) throw closed(current);
    const to: DisputeStatus = current.kind === 'chargeback' ? outcome : 'warning_closed';
    const row = await this.db.transaction((trx) => moveDispute(trx, { disputeId: id, from: [OPEN[current.kind], REVIEW[current.kind]], to, at: this.clock.now() }));
    if (!row) throw closed(current);
    return disputeView(row);
  }
}

function testDecision(text: string | undefined): 'won' | 'lost' | null {
  if (text?.includes('winning_evidence')) return 'won';
  if (text?.includes('losing_evidence')) return 'lost';
  return null;
}

function closed(row: DisputeRow): AppError {
  return new AppError('DISPUTE_CLOSED', `Dispute ${row.id} is ${row.status}: it is closed`, { status: row.status });
}

function refuseClosedOrSubmitted(row: DisputeRow): void {
  if (CLOSED.includes(row.status)) throw closed(row);
  if (row.evidence_submitted_at !== null) {
    throw new AppError('DISPUTE_EVIDENCE_SUBMITTED', `Evidence for dispute ${row.id} was submitted on ${row.evidence_submitted_at}; the bank is reviewing it`, { status: row.status });
  }
}
