// Settlement: Monext's Retail API publishes no settlement report, so the connector makes its own from what each
// transaction shows (its capture and the capture's date) and the remittance delay of the contract.
import { addSeconds, iso } from '../../shared/clock.js';
import type { Mode } from '../../modules/merchants/merchants.table.js';
import type { SettlementLine } from '../acquirer.js';
import { MonextUnavailable } from './monext.client.js';
import type { MonextContext } from './monext.context.js';
import { transactionDetails, type TransactionDetails } from './monext.outcomes.js';

/** Monext remits a day's captures the next day (MOTU_MONEXT_SETTLEMENT_DELAY overrides it). */
const SETTLEMENT_DELAY_SECONDS = 86_400;
/** How far back open authorizations are looked for: a capture can come up to an authorization's life after it. */
const SETTLEMENT_LOOKBACK_SECONDS = 35 * 86_400;
/** A card authorization Monext keeps open for capture (7 days); one not captured by then is closed. */
const AUTHORIZATION_LIFE_SECONDS = 8 * 86_400;
/** Authorizations read from Monext per run and contract (the next run goes on). */
const SETTLEMENT_BATCH = 200;

/**
 * Monext's REST API publishes no settlement report, so the connector makes one: each open authorization of this
 * contract is read back from Monext (GET transaction) until it shows a capture — made by Motu, by Monext's
 * automatic capture, or in Monext's back-office — and is reported settled once the remittance delay has passed
 * since Monext's capture date. Not yet captured ones are read again at most every `recheck` seconds (the delay,
 * at most 15 minutes); an authorization that ended without a capture (refused, cancelled, expired) is closed and
 * never read again. Lines reported after `from` are reported again (from what is kept, no call), so a run
 * interrupted before its cursor moved loses nothing; Motu settles a payment once.
 */
export async function settlementReport(ctx: MonextContext, input: { mode: Mode; from: Date; to: Date }): Promise<SettlementLine[]> {
  const delay = ctx.clientOptions.settlementDelaySeconds ?? SETTLEMENT_DELAY_SECONDS;
  const recheck = Math.min(delay, 900);
  const to = iso(input.to);
  const lines: SettlementLine[] = [];
  const line = (row: { transaction_id: string | null; merchant_reference: string; captured_amount: number | null; currency: string; captured_at: string | null }): SettlementLine => ({
    authorizationId: `${ctx.contractId}.${row.transaction_id}`, merchantReference: row.merchant_reference, capturedAmount: row.captured_amount!,
    currency: row.currency, capturedAt: row.captured_at!, settledAt: iso(addSeconds(new Date(row.captured_at!), delay)),
  });
  const base = () => ctx.db.kysely.selectFrom('monext_authorizations').selectAll()
    .where('contract_id', '=', ctx.contractId).where('mode', '=', input.mode);
  // Reported by a run whose cursor did not move.
  for (const row of await base().where('settled_at', '>', iso(input.from)).where('settled_at', '<=', to).where('captured_amount', '>', 0).execute()) {
    lines.push(line(row));
  }
  const open = await base().where('settled_at', 'is', null).where('amount', '>', 0)
    .where('state', 'in', ['answered', 'authorized'])
    .where('transaction_id', 'is not', null).where('transaction_id', 'not like', 'wallet:%')
    .where('created_at', '>=', iso(addSeconds(input.to, -SETTLEMENT_LOOKBACK_SECONDS)))
    .where('created_at', '<=', iso(addSeconds(input.to, -delay)))
    .where((eb) => eb.or([
      // A capture already seen is read again only once it is due: nothing to ask Monext, nothing to write before.
      eb('captured_at', '<=', iso(addSeconds(input.to, -delay))),
      eb.and([eb('captured_at', 'is', null), eb('checked_at', 'is', null)]),
      eb.and([eb('captured_at', 'is', null), eb('checked_at', '<=', iso(addSeconds(input.to, -recheck)))]),
    ]))
    .orderBy('created_at').limit(SETTLEMENT_BATCH).execute();
  for (const row of open) {
    let { captured_amount: capturedAmount, captured_at: capturedAt } = row;
    let closed = false;
    if (capturedAt === null) {
      // Monext not answering for one authorization leaves it for the next run; the others are reported now (their
      // rows are marked as reported, so a line dropped here would never come back).
      let details: TransactionDetails | null;
      try {
        details = await transactionDetails(ctx, row.transaction_id!);
      } catch (err) {
        if (err instanceof MonextUnavailable) continue;
        throw err;
      }
      const capture = details ? captureOf(details) : null;
      if (capture) ({ amount: capturedAmount, at: capturedAt } = capture);
      // Refused, cancelled, or an authorization past its life (Monext's are valid 7 days) that was never captured.
      else closed = !details || details.result.title !== 'ACCEPTED'
        || details.associated.some((t) => t.type === 'CANCEL_AUTHORIZATION' && t.status === 'OK')
        || Date.parse(row.created_at) < input.to.getTime() - AUTHORIZATION_LIFE_SECONDS * 1000;
    }
    const due = capturedAt !== null && Date.parse(capturedAt) + delay * 1000 <= input.to.getTime();
    await ctx.db.kysely.updateTable('monext_authorizations').set({
      captured_amount: closed ? 0 : capturedAmount, captured_at: capturedAt, checked_at: to, settled_at: due || closed ? to : null,
    }).where('id', '=', row.id).execute();
    if (due) lines.push(line({ ...row, captured_amount: capturedAmount, captured_at: capturedAt }));
  }
  return lines;
}

/** The capture Monext's transaction shows: at once (authorization and capture) or its captures' sum, at the first one's date. */
function captureOf(d: TransactionDetails): { amount: number; at: string } | null {
  if (d.result.title !== 'ACCEPTED') return null;
  const stamp = (date: string) => (Number.isNaN(Date.parse(date)) ? null : new Date(date).toISOString());
  if (d.type === 'AUTHORIZATION_AND_CAPTURE') {
    const at = stamp(d.date);
    return at && d.amount > 0 ? { amount: d.amount, at } : null;
  }
  const captures = d.associated.filter((t) => t.type === 'CAPTURE' && t.status === 'OK');
  const amount = captures.reduce((sum, t) => sum + t.amount, 0);
  const at = captures.map((t) => stamp(t.date)).find((x) => x !== null) ?? null;
  return amount > 0 && at ? { amount, at } : null;
}
