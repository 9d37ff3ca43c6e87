// Split payments on the payment's path (docs/platforms.md, "Split payments"): what a split payment announces
// (`platformDistribution`), what it posts to the platform's and the sellers' balances, and how a refund is shared. Each
// function starts with a string test on the payment's order, so a payment without split pays one `includes` for it.
//
// Ledger, on the transaction of the transition (the platform is the merchant of record: the card's `payment`, Motu's
// `payment_fee`, refunds and chargebacks stay its own, as for any payment):
//   capture  platform: platform_share −netᵢ per seller;  seller: platform_share +amountᵢ, platform_commission −commissionᵢ
//            (all pending until the payment settles, then released with the payment's other transactions);
//   refund   platform: platform_share +(shareᵢ − commission backᵢ);  seller: platform_share −shareᵢ,
//            platform_commission +commission backᵢ (available at once, like a refund).
// Each pair goes through `platform_clearing`, which sums to zero per payment (`motu ledger verify` checks it).
import type { Kysely } from 'kysely';
import type { Trx } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import type { FeeLine, PlatformDistributionEntry, RefundShare } from '../../events/payloads.js';
import { AppError, validationError } from '../../shared/errors.js';
import { isCurrency, toEurCents, type Currency } from '../../shared/money.js';
import type { PostInput } from '../ledger/postings.js';
import { postMany } from '../ledger/postings.js';
import type { PaymentRow } from '../payments/payments.table.js';
import { storedPlan } from './split-config.js';
import {
  capturedSplit, commissionBack, orderSplit, platformNet, proportionalRefund, type SellerFigures, type SellerRefunded, type SplitFigures,
} from './split-arithmetic.js';

type SplitPayment = Pick<PaymentRow, 'order_json' | 'amount' | 'captured_amount'>;

/** A payment's split as it stands: captured figures once captured, the order's (a projection) before. Null: no split. */
export function splitOf(payment: SplitPayment): SplitFigures | null {
  const plan = storedPlan(payment.order_json);
  if (!plan) return null;
  return payment.captured_amount > 0 ? capturedSplit(plan, payment.amount, payment.captured_amount) : orderSplit(plan, payment.amount);
}

export function isSplit(payment: Pick<PaymentRow, 'order_json'>): boolean {
  return storedPlan(payment.order_json) !== null;
}

/** Refunded so far per seller (succeeded refunds; with `reserved`, those under way too), in the split's order. */
async function refundedBySeller(q: Kysely<DB>, paymentId: string, split: SplitFigures, reserved: boolean): Promise<SellerRefunded[]> {
  const rows = await q.selectFrom('refund_shares as s').innerJoin('refunds as r', 'r.id', 's.refund_id')
    .select(['s.merchant_id', (eb) => eb.fn.sum<number>('s.amount').as('amount'), (eb) => eb.fn.sum<number>('s.commission').as('commission')])
    .where('s.payment_id', '=', paymentId).where('r.status', 'in', reserved ? ['pending', 'succeeded'] : ['succeeded'])
    .groupBy('s.merchant_id').execute();
  const by = new Map(rows.map((r) => [r.merchant_id, { amount: Number(r.amount), commission: Number(r.commission) }]));
  return split.sellers.map((s) => by.get(s.merchantId) ?? { amount: 0, commission: 0 });
}

function commissionLines(s: SellerFigures, rate: number, currency: Currency): FeeLine[] {
  return [
    {
      id: 'platform_commission', label: 'Platform commission', type: 'PERCENTAGE', rate, amount: s.commissionRated,
      amountEur: toEurCents(s.commissionRated, currency), totalAmount: s.commissionRated, totalAmountEur: toEurCents(s.commissionRated, currency),
    },
    { id: 'platform_fixed_fee', label: 'Platform fixed fee', totalAmount: s.commissionFixed, totalAmountEur: toEurCents(s.commissionFixed, currency) },
  ];
}

/**
 * `platformDistribution` of a split payment's events and view: one entry per seller, then the platform's. `fees` is the
 * settlement block's commission (Motu's fees, the platform's as merchant of record). Undefined for a payment without split.
 */
export async function distributionOf(q: Kysely<DB>, payment: PaymentRow, fees: number): Promise<PlatformDistributionEntry[] | undefined> {
  const plan = storedPlan(payment.order_json);
  if (!plan) return undefined;
  const split = payment.captured_amount > 0 ? capturedSplit(plan, payment.amount, payment.captured_amount) : orderSplit(plan, payment.amount);
  const currency: Currency = isCurrency(payment.currency) ? payment.currency : 'EUR';
  const refunded = payment.refunded_amount > 0 ? await refundedBySeller(q, payment.id, split, false) : split.sellers.map(() => ({ amount: 0, commission: 0 }));
  const entries: PlatformDistributionEntry[] = split.sellers.map((s, i) => ({
    merchantId: s.merchantId, amount: s.amount, discount: s.discount, commission: s.commission, netAmount: s.netAmount, currency,
    refundedAmount: refunded[i]!.amount, refundedCommission: refunded[i]!.commission,
    detailedCommission: commissionLines(s, plan.sellers[i]!.commissionRate, currency),
  }));
  entries.push({
    role: 'platform', merchantId: payment.merchant_id, commission: split.commission, discounts: split.discounts, financing: split.financing,
    fees, netAmount: platformNet(split, fees), currency, refundedCommission: refunded.reduce((s, r) => s + r.commission, 0),
  });
  return entries;
}

function sellerOwner(payment: PaymentRow, merchantId: string) {
  return { merchantId, mode: payment.mode, storeId: null };
}

/**
 * At capture: each seller's amount and commission, the platform's payment of each seller's net (pending). Returned to
 * the capture, which posts them with the payment's own transactions (ledger's onCapture): all the capture's rows in a
 * few statements per table (PostgreSQL: one statement), whatever the number of sellers.
 */
export function splitCapturePostings(payment: PaymentRow, at: Date): PostInput[] {
  if (payment.captured_amount <= 0) return [];
  const split = splitOf(payment);
  if (!split) return [];
  const base = { currency: payment.currency, pending: true, source: { type: 'payment', id: payment.id }, paymentId: payment.id, at };
  const platform = { merchantId: payment.merchant_id, mode: payment.mode, storeId: payment.store_id };
  const posts: PostInput[] = [];
  for (const s of split.sellers) {
    if (s.netAmount !== 0) posts.push({ ...base, owner: platform, type: 'platform_share', amount: -s.netAmount, description: `Share of seller ${s.merchantId}` });
    if (s.amount !== 0) posts.push({ ...base, owner: sellerOwner(payment, s.merchantId), type: 'platform_share', amount: s.amount, description: payment.order_reference ?? payment.reference });
    if (s.commission !== 0) posts.push({ ...base, owner: sellerOwner(payment, s.merchantId), type: 'platform_commission', amount: -s.commission, description: 'Platform commission' });
  }
  return posts;
}

/** A refund applied: each seller gives back its share and gets back that share's commission; the platform the rest. */
export async function onSplitRefund(trx: Trx, payment: PaymentRow, refundId: string, at: Date): Promise<RefundShare[] | undefined> {
  if (!isSplit(payment)) return undefined;
  // By seller id in code-point order, the same on both databases whatever PostgreSQL's collation.
  const shares = (await trx.selectFrom('refund_shares').select(['merchant_id', 'amount', 'commission']).where('refund_id', '=', refundId).execute())
    .sort((x, y) => (x.merchant_id < y.merchant_id ? -1 : x.merchant_id > y.merchant_id ? 1 : 0));
  const base = { currency: payment.currency, source: { type: 'refund', id: refundId }, paymentId: payment.id, at };
  const posts: PostInput[] = [];
  for (const s of shares) {
    const platformBack = s.amount - s.commission;
    if (platformBack !== 0) {
      posts.push({ ...base, owner: { merchantId: payment.merchant_id, mode: payment.mode, storeId: payment.store_id }, type: 'platform_share', amount: platformBack, description: `Refund share of seller ${s.merchant_id}` });
    }
    if (s.amount !== 0) posts.push({ ...base, owner: sellerOwner(payment, s.merchant_id), type: 'platform_share', amount: -s.amount, description: payment.order_reference ?? payment.reference });
    if (s.commission !== 0) posts.push({ ...base, owner: sellerOwner(payment, s.merchant_id), type: 'platform_commission', amount: s.commission, description: 'Platform commission given back' });
  }
  await postMany(trx, posts);
  return shares.map((s) => ({ merchantId: s.merchant_id, amount: s.amount, commission: s.commission }));
}

export interface GivenShare {
  merchantId: string;
  amount: number;
}

/**
 * A refund of a split payment being reserved (under the payment's lock): its shares per seller, as given (each at most
 * what the seller has left, summing to the refund) or in proportion, written with the commission each gives back.
 * A payment without split: `given` is refused, nothing written.
 */
export async function reserveShares(trx: Trx, payment: PaymentRow, refund: { id: string; amount: number }, given: readonly GivenShare[] | undefined): Promise<void> {
  const split = splitOf(payment);
  if (!split) {
    if (given !== undefined) throw validationError([{ field: 'distribution', message: 'applies to a split payment only (order.platformConfig.distribution)' }]);
    return;
  }
  const before = await refundedBySeller(trx, payment.id, split, true);
  const left = split.sellers.map((s, i) => s.amount - before[i]!.amount);
  let amounts: number[];
  if (given === undefined) {
    amounts = proportionalRefund(refund.amount, split, before);
  } else {
    amounts = split.sellers.map(() => 0);
    const seen = new Set<string>();
    given.forEach((g, i) => {
      const at = split.sellers.findIndex((s) => s.merchantId === g.merchantId);
      if (at < 0 || seen.has(g.merchantId)) {
        throw validationError([{ field: `distribution[${i}].merchantId`, message: at < 0 ? 'is not a seller of this payment' : 'is given twice' }]);
      }
      seen.add(g.merchantId);
      amounts[at] = g.amount;
    });
    const sum = given.reduce((s, g) => s + g.amount, 0);
    if (sum !== refund.amount) throw validationError([{ field: 'distribution', message: `amounts add up to ${sum}; they must equal the refund's amount, ${refund.amount}` }]);
    given.forEach((g, i) => {
      const at = split.sellers.findIndex((s) => s.merchantId === g.merchantId);
      if (g.amount > left[at]!) {
        throw new AppError('REFUND_EXCEEDS_CAPTURED', `Cannot take ${g.amount} from seller ${g.merchantId}: ${left[at]} is left of its share`, {
          field: `distribution[${i}].amount`, merchantId: g.merchantId, requested: g.amount, refundable: left[at], currency: payment.currency,
        });
      }
    });
  }
  const rows = split.sellers.flatMap((s, i) => {
    const amount = amounts[i]!;
    if (amount === 0) return [];
    return [{ refund_id: refund.id, payment_id: payment.id, merchant_id: s.merchantId, amount, commission: commissionBack(s, before[i]!, amount) }];
  });
  if (rows.length > 0) await trx.insertInto('refund_shares').values(rows).execute();
}

/** A refused refund: its shares are dropped, so the sellers have them left again. */
export async function releaseShares(trx: Trx, refundId: string): Promise<void> {
  await trx.deleteFrom('refund_shares').where('refund_id', '=', refundId).execute();
}
