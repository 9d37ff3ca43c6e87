// Money movements on an authorization Monext holds: capture, cancel and refund (POST /v1/checkout/transactions/{id}/
// captures | cancels | refunds), and Monext's record of the authorization (GET /v1/checkout/transactions/{id}) that the
// recovery reads. Monext offers no idempotency key: each refund is written (monext_refunds) before it is sent, and one
// whose answer was lost is matched against Monext's record of the authorization, never sent twice while it may still
// be on its way.
import type { Kysely, Updateable } from 'kysely';
import { compiledQuery } from '../../db/compiled.js';
import type { DB } from '../../db/schema.js';
import type { Mode } from '../../modules/merchants/merchants.table.js';
import { iso } from '../../shared/clock.js';
import type { AuthorizationView, OperationResult, RefundInput, RefundView } from '../acquirer.js';
import { MonextUnavailable, resultOf, type MonextAnswer } from './monext.client.js';
import type { MonextContext } from './monext.context.js';
import { splitAuthorizationId, transactionDetails, viewOf } from './monext.outcomes.js';
import type { MonextRefundsTable } from './monext.table.js';

// Compiled once (src/db/compiled.ts): every live capture keeps its answer with the attempt.
const noteCapture = compiledQuery((db, p: { contractId: string; transactionId: string; amount: number; capturedAt: string; at: string }) =>
  db.updateTable('monext_authorizations').set({ captured_amount: p.amount, captured_at: p.capturedAt, updated_at: p.at })
    .where('contract_id', '=', p.contractId).where('transaction_id', '=', p.transactionId).where('captured_at', 'is', null));
const noteCancel = compiledQuery((db, p: { contractId: string; transactionId: string; at: string }) =>
  db.updateTable('monext_authorizations').set({ state: 'cancelled', updated_at: p.at })
    .where('contract_id', '=', p.contractId).where('transaction_id', '=', p.transactionId).where('state', '!=', 'cancelled'));

export async function capture(ctx: MonextContext, input: { mode: Mode; authorizationId: string; amount: number }): Promise<OperationResult> {
  return operation(ctx, input.authorizationId, 'captures', { amount: input.amount });
}

export async function cancel(ctx: MonextContext, input: { mode: Mode; authorizationId: string }): Promise<OperationResult> {
  const view = await getAuthorization(ctx, input.authorizationId);
  if (!view) return { ok: false, reason: 'unknown authorization' };
  if (view.status === 'cancelled') return { ok: true };
  if (view.status !== 'authorized') return { ok: false, reason: `the authorization is ${view.status}` };
  return operation(ctx, input.authorizationId, 'cancels', { amount: view.amount });
}

async function operation(ctx: MonextContext, authorizationId: string, kind: 'captures' | 'cancels', body: Record<string, unknown>): Promise<OperationResult> {
  const parsed = splitAuthorizationId(authorizationId);
  if (!parsed?.transaction) return { ok: false, reason: 'unknown authorization' };
  const answer = await ctx.client.call('POST', `/v1/checkout/transactions/${encodeURIComponent(parsed.transaction)}/${kind}`, body);
  if (answer.kind === 'rejected') return { ok: false, reason: `${answer.title}${answer.code ? ` (${answer.code})` : ''}: ${answer.detail}`.slice(0, 300) };
  const result = resultOf(answer.body);
  if (!result) throw new MonextUnavailable(`a ${kind.slice(0, -1)} answer without its result`);
  if (result.title === 'ACCEPTED') {
    // A capture is kept in the transaction that records it in Motu (Keep); a cancel at once.
    if (kind === 'captures') return { ok: true, keep: (trx) => noteOperation(ctx, parsed.transaction!, { captured: Number(body.amount) }, trx) };
    await noteOperation(ctx, parsed.transaction, { cancelled: true });
    return { ok: true };
  }
  if (result.title === 'REFUSED' || result.title === 'ERROR') return { ok: false, reason: `${result.title} ${result.code}${result.detail ? `: ${result.detail}` : ''}`.slice(0, 300) };
  throw new MonextUnavailable(`an unknown ${kind.slice(0, -1)} status`);
}

export async function refund(ctx: MonextContext, input: RefundInput): Promise<OperationResult> {
  const parsed = splitAuthorizationId(input.authorizationId);
  if (!parsed?.transaction) return { ok: false, reason: 'unknown authorization' };
  if (!Number.isInteger(input.amount) || input.amount <= 0) return { ok: false, reason: 'amount must be a positive integer' };
  const now = ctx.clock.now();
  try {
    await ctx.db.singleWrite((db) => db.insertInto('monext_refunds').values({
      reference: input.reference, contract_id: ctx.contractId, mode: input.mode, authorization_id: input.authorizationId,
      amount: input.amount, status: 'sent', transaction_id: null, reason: null, created_at: iso(now),
    }).execute());
  } catch (err) {
    if (!ctx.db.isUniqueViolation(err)) throw err;
    const found = await getRefund(ctx, input.mode, input.reference);
    if (found) return found.status === 'succeeded' ? { ok: true } : { ok: false, reason: found.reason ?? 'refused' };
    // Never received by Monext (getRefund made sure, past the timeout): sent again, by one caller only.
    const row = await ctx.db.kysely.selectFrom('monext_refunds').selectAll().where('reference', '=', input.reference).executeTakeFirstOrThrow();
    const retaken = await ctx.db.singleWrite((db) => db.updateTable('monext_refunds').set({ created_at: iso(now) })
      .where('reference', '=', input.reference).where('status', '=', 'sent').where('created_at', '=', row.created_at).executeTakeFirst());
    if (Number(retaken.numUpdatedRows) !== 1) throw new MonextUnavailable('another refund under the same reference is on its way');
  }
  const answer = await ctx.client.call('POST', `/v1/checkout/transactions/${encodeURIComponent(parsed.transaction)}/refunds`, {
    amount: input.amount, merchantReference: input.reference,
  });
  return recordRefund(ctx, input.reference, answer);
}

async function recordRefund(ctx: MonextContext, reference: string, answer: MonextAnswer): Promise<OperationResult> {
  const record = (set: Updateable<MonextRefundsTable>) => ctx.db.singleWrite((db) => db.updateTable('monext_refunds').set(set)
    .where('reference', '=', reference).where('status', '=', 'sent').execute());
  if (answer.kind === 'rejected') {
    const reason = `${answer.title}${answer.code ? ` (${answer.code})` : ''}: ${answer.detail}`.slice(0, 300);
    await record({ status: 'refused', reason });
    return { ok: false, reason };
  }
  const result = resultOf(answer.body);
  const transaction = answer.body.transaction as Record<string, unknown> | undefined;
  if (!result) throw new MonextUnavailable('a refund answer without its result');
  if (result.title === 'ACCEPTED') {
    const transactionId = typeof transaction?.id === 'string' ? transaction.id : null;
    await record({ status: 'succeeded', transaction_id: transactionId });
    return { ok: true };
  }
  if (result.title === 'REFUSED' || result.title === 'ERROR') {
    const reason = `${result.title} ${result.code}${result.detail ? `: ${result.detail}` : ''}`.slice(0, 300);
    await record({ status: 'refused', reason });
    return { ok: false, reason };
  }
  throw new MonextUnavailable('an unknown refund status');
}

/**
 * The refund under this reference: from its row once answered; a row whose answer was lost is matched against
 * Monext's record of the authorization (a successful REFUND of the same amount that no other reference owns).
 * Null when Monext surely never received it (no such refund, and the call is past its timeout).
 */
export async function getRefund(ctx: MonextContext, mode: Mode, reference: string): Promise<RefundView | null> {
  const row = await ctx.db.kysely.selectFrom('monext_refunds').selectAll().where('reference', '=', reference).where('mode', '=', mode).executeTakeFirst();
  if (!row) return null;
  const view = (status: 'succeeded' | 'refused', reason: string | null): RefundView => ({
    reference, authorizationId: row.authorization_id, amount: row.amount, status, reason, createdAt: row.created_at,
  });
  if (row.status !== 'sent') return view(row.status, row.reason);
  const parsed = splitAuthorizationId(row.authorization_id);
  if (!parsed?.transaction) return null;
  const details = await transactionDetails(ctx, parsed.transaction);
  if (!details) throw new MonextUnavailable('the authorization of a refund is unknown to Monext');
  const owned = new Set((await ctx.db.kysely.selectFrom('monext_refunds').select('transaction_id')
    .where('authorization_id', '=', row.authorization_id).where('transaction_id', 'is not', null).execute()).map((r) => r.transaction_id));
  const match = details.associated.find((t) => t.type === 'REFUND' && t.status === 'OK' && t.amount === row.amount && !owned.has(t.id));
  if (match) {
    await ctx.db.kysely.updateTable('monext_refunds').set({ status: 'succeeded', transaction_id: match.id }).where('reference', '=', reference).where('status', '=', 'sent').execute();
    return view('succeeded', null);
  }
  if (ctx.clock.now().getTime() - Date.parse(row.created_at) < ctx.clientOptions.timeoutMs + 1000) {
    throw new MonextUnavailable('the refund call may still be on its way');
  }
  return null;
}

/** Monext's record of the authorization (a call); a capture or cancel found there that the attempt's row lacks is kept. */
export async function getAuthorization(ctx: MonextContext, authorizationId: string): Promise<AuthorizationView | null> {
  const parsed = splitAuthorizationId(authorizationId);
  if (!parsed?.transaction || parsed.contractId !== ctx.contractId) return null;
  const details = await transactionDetails(ctx, parsed.transaction);
  if (!details) return null;
  const view = viewOf(authorizationId, details);
  if (view.status === 'captured' || view.status === 'cancelled') {
    await noteOperation(ctx, parsed.transaction, view.status === 'captured' ? { captured: view.capturedAmount, at: view.capturedAt } : { cancelled: true });
  }
  return view;
}

/**
 * A capture or cancel Monext accepted, kept with the attempt: a capture once (the first one's date), which the
 * settlement then reports without reading the transaction back; a cancel as the attempt's state. Alone (no `trx`:
 * what a read of Monext found), it is written only when the row does not have it yet: reads that find nothing new
 * write nothing.
 */
export async function noteOperation(ctx: MonextContext, transactionId: string, what: { captured: number; at?: string | null } | { cancelled: true }, trx?: Kysely<DB>): Promise<void> {
  const at = iso(ctx.clock.now());
  // In the caller's transaction nobody reads its answer: on PostgreSQL it goes with the transaction's next statement
  // (the payment's transition, or its COMMIT), not in a round trip of its own (deferWrite).
  const write = (db: Kysely<DB>, how: 'run' | 'defer') => ('cancelled' in what
    ? noteCancel[how](db, { contractId: ctx.contractId, transactionId, at })
    : noteCapture[how](db, { contractId: ctx.contractId, transactionId, amount: what.captured, capturedAt: what.at ?? at, at }));
  if (trx) {
    await write(trx, 'defer');
    return;
  }
  const row = await ctx.db.kysely.selectFrom('monext_authorizations').select(['state', 'captured_at'])
    .where('contract_id', '=', ctx.contractId).where('transaction_id', '=', transactionId).executeTakeFirst();
  if (!row || ('cancelled' in what ? row.state === 'cancelled' : row.captured_at !== null)) return;
  await ctx.db.singleWrite(async (db) => {
    await write(db, 'run');
  });
}
