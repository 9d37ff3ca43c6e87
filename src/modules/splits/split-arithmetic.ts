// The arithmetic of split payments (docs/platforms.md, "Split payments"): pure functions on exact integers, half-up
// rounding and largest remainders (src/shared/money.ts), never floating point. Everything a split payment announces
// (platformDistribution) and posts (src/modules/splits/split-postings.ts) comes from here, so both agree to the unit.
//
// Figures, in the order's currency (minor units):
//   seller i:  amount aᵢ, discount dᵢ (funded by the platform), commission cᵢ = round_half_up(aᵢ × rate / 10,000) + fixed,
//              net nᵢ = aᵢ − cᵢ;
//   platform:  financing F, the card charged C = order.amount − F, Σ aᵢ = order.amount + Σ dᵢ;
//              net = Σ cᵢ − Σ dᵢ − F − fees  (= C − fees − Σ nᵢ: what the card brought, less Motu's fees and the sellers' nets).
//
// A partial capture C′ < C scales the split by C′/C: A′ = round_half_up(Σ aᵢ × C′/C) shared over the sellers in
// proportion to aᵢ (largest remainder), D′ = round_half_up(Σ dᵢ × C′/C) likewise over dᵢ, F′ = A′ − C′ − D′ (always
// between 0 and F), cᵢ′ = round_half_up(cᵢ × aᵢ′ / aᵢ) (its rate part likewise, the fixed part the rest). So
// Σ aᵢ′ = C′ + Σ dᵢ′ + F′ holds exactly, and a full capture gives back the order's figures.
//
// Refunds take their amount R from the sellers: as given, or in proportion to what each has left (largest remainder;
// at the first refund that is its amount). The commission given back is cumulative, round_half_up(cᵢ′ × refundedᵢ / aᵢ′)
// less what earlier refunds gave back, so a seller refunded in full has its whole commission back, to the unit.
import { percentOf, roundHalfUp } from '../../shared/money.js';

export interface SellerSplit {
  merchantId: string;
  amount: number;
  discount: number;
  /** Basis points of the seller's amount. */
  commissionRate: number;
  /** Minor units, added to the rate's part. */
  commissionFixed: number;
}

export interface SplitPlan {
  sellers: SellerSplit[];
  financing: number;
}

export interface SellerFigures {
  merchantId: string;
  amount: number;
  discount: number;
  /** The rate's part of the commission. */
  commissionRated: number;
  /** The fixed part of the commission. */
  commissionFixed: number;
  commission: number;
  netAmount: number;
}

export interface SplitFigures {
  sellers: SellerFigures[];
  /** What the card paid (the captured amount, or the amount to charge before capture). */
  charged: number;
  commission: number;
  discounts: number;
  financing: number;
}

/**
 * `total` shared in proportion to `weights` by largest remainder: each share is ⌊total × wᵢ / W⌋, then the units left go
 * one each to the largest remainders (ties to the first). Σ shares = total exactly; each share ≤ ⌈total × wᵢ / W⌉.
 * All weights 0: everything to nobody, so `total` must then be 0.
 */
export function largestRemainder(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((s, w) => s + BigInt(w), 0n);
  if (sum === 0n) {
    if (total !== 0) throw new RangeError(`Cannot share ${total} over weights that are all 0`);
    return weights.map(() => 0);
  }
  const t = BigInt(total);
  const shares = weights.map((w) => (t * BigInt(w)) / sum);
  const remainders = weights.map((w, i) => ({ i, r: (t * BigInt(w)) % sum }));
  let left = Number(t - shares.reduce((s, x) => s + x, 0n));
  remainders.sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1));
  for (const { i } of remainders) {
    if (left === 0) break;
    shares[i] = shares[i]! + 1n;
    left -= 1;
  }
  return shares.map(Number);
}

/** The commission of a seller's amount: the rate's part (half up) and the fixed part. */
export function commissionOf(amount: number, rate: number, fixed: number): { rated: number; fixed: number; total: number } {
  const rated = percentOf(amount, rate);
  return { rated, fixed, total: rated + fixed };
}

/** The split of the whole order (before capture, or a capture of everything). */
export function orderSplit(plan: SplitPlan, charged: number): SplitFigures {
  const sellers = plan.sellers.map((s) => {
    const c = commissionOf(s.amount, s.commissionRate, s.commissionFixed);
    return {
      merchantId: s.merchantId, amount: s.amount, discount: s.discount, commissionRated: c.rated, commissionFixed: c.fixed,
      commission: c.total, netAmount: s.amount - c.total,
    };
  });
  return totals(sellers, charged, plan.financing);
}

function totals(sellers: SellerFigures[], charged: number, financing: number): SplitFigures {
  return {
    sellers,
    charged,
    commission: sellers.reduce((s, x) => s + x.commission, 0),
    discounts: sellers.reduce((s, x) => s + x.discount, 0),
    financing,
  };
}

/**
 * The split of `captured` out of `charge` (the amount the card was to pay): the order's figures scaled by captured /
 * charge (see the top of this file). captured = charge gives the order's split; captured = 0 gives zeros.
 */
export function capturedSplit(plan: SplitPlan, charge: number, captured: number): SplitFigures {
  const whole = orderSplit(plan, charge);
  if (captured === charge) return whole;
  if (captured < 0 || captured > charge) throw new RangeError(`captured ${captured} is outside 0..${charge}`);
  const amountsTotal = whole.sellers.reduce((s, x) => s + x.amount, 0);
  const scaledAmounts = largestRemainder(roundHalfUp(BigInt(amountsTotal) * BigInt(captured), charge), whole.sellers.map((s) => s.amount));
  const scaledDiscounts = largestRemainder(roundHalfUp(BigInt(whole.discounts) * BigInt(captured), charge), whole.sellers.map((s) => s.discount));
  const sellers = whole.sellers.map((s, i) => {
    const amount = scaledAmounts[i]!;
    const commission = s.amount === 0 ? 0 : roundHalfUp(BigInt(s.commission) * BigInt(amount), s.amount);
    const rated = s.amount === 0 ? 0 : roundHalfUp(BigInt(s.commissionRated) * BigInt(amount), s.amount);
    return {
      merchantId: s.merchantId, amount, discount: scaledDiscounts[i]!, commissionRated: rated, commissionFixed: commission - rated,
      commission, netAmount: amount - commission,
    };
  });
  const financing = scaledAmounts.reduce((s, x) => s + x, 0) - captured - scaledDiscounts.reduce((s, x) => s + x, 0);
  return totals(sellers, captured, financing);
}

/** The platform's net: its commissions less the discounts and financing it funds and Motu's fees. */
export function platformNet(split: SplitFigures, fees: number): number {
  return split.commission - split.discounts - split.financing - fees;
}

/** What a seller has already given back, for the refund arithmetic. */
export interface SellerRefunded {
  amount: number;
  commission: number;
}

/**
 * The shares of a refund of `amount` in proportion to what each seller has left (its captured share less what
 * refunds took or reserved), by largest remainder: never more than a seller has left when `amount` ≤ Σ left.
 */
export function proportionalRefund(amount: number, split: SplitFigures, refunded: readonly SellerRefunded[]): number[] {
  const left = split.sellers.map((s, i) => s.amount - (refunded[i]?.amount ?? 0));
  return largestRemainder(amount, left);
}

/** The commission a seller gets back with a refund share: cumulative, so a seller refunded in full has all of it back. */
export function commissionBack(seller: SellerFigures, before: SellerRefunded, share: number): number {
  if (seller.amount === 0) return 0;
  const cumulative = roundHalfUp(BigInt(seller.commission) * BigInt(before.amount + share), seller.amount);
  return cumulative - before.commission;
}
