// `order.platformConfig` of a split payment (docs/platforms.md, "Split payments"), checked where a payment with an
// order is created (sessions, payment links, charges of a saved card). This file is the part that needs no database;
// platform-config.ts adds the caller's platform flag and the sellers' links.
//
// Compatibility: platformConfig was free JSON kept as given, and integrations send other shapes there (a channel, a
// shop id). A platformConfig with neither `distribution` nor `financing` is still kept as given and ignored, from any
// merchant. One with either key asks for a split: it is then checked exactly, and any problem is 400
// PLATFORM_CONFIG_INVALID with `details.field` naming the field.
import { AppError } from '../../shared/errors.js';
import { MAX_AMOUNT } from '../../shared/money.js';
import { commissionOf, type SplitPlan } from './split-arithmetic.js';

/** Sellers of one payment, at most. */
export const MAX_SELLERS = 50;

export const ROOT = 'order.platformConfig';

export function invalid(field: string, message: string): AppError {
  return new AppError('PLATFORM_CONFIG_INVALID', `${field} ${message}`, { field }, [{ field, message }]);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The config asks for a split (else it is free JSON, kept and ignored). */
export function asksForSplit(config: unknown): config is Record<string, unknown> {
  return isObject(config) && ('distribution' in config || 'financing' in config);
}

function onlyKeys(value: Record<string, unknown>, allowed: readonly string[], at: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw invalid(`${at}.${key}`, `is not a field of ${at} (allowed: ${allowed.join(', ')})`);
  }
}

function amountAt(value: unknown, field: string, min: number, max = MAX_AMOUNT): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw invalid(field, `must be an integer from ${min} to ${max} (minor units)`);
  }
  return value;
}

/** Everything that needs no database: the shape, each seller's figures, and the sums. */
export function checkShape(config: Record<string, unknown>, orderAmount: number): SplitPlan {
  onlyKeys(config, ['distribution', 'financing'], ROOT);
  const distribution = config.distribution;
  if (!Array.isArray(distribution) || distribution.length < 1 || distribution.length > MAX_SELLERS) {
    throw invalid(`${ROOT}.distribution`, `must be a list of 1 to ${MAX_SELLERS} sellers`);
  }
  const seen = new Set<string>();
  const sellers = distribution.map((entry, i) => {
    const at = `${ROOT}.distribution[${i}]`;
    if (!isObject(entry)) throw invalid(at, 'must be an object {merchantId, amount, commission?, discount?}');
    onlyKeys(entry, ['merchantId', 'amount', 'commission', 'discount'], at);
    if (typeof entry.merchantId !== 'string' || !/^mer_[A-Za-z0-9]{1,60}$/.test(entry.merchantId)) {
      throw invalid(`${at}.merchantId`, 'must be a seller\'s merchant id (mer_…)');
    }
    if (seen.has(entry.merchantId)) throw invalid(`${at}.merchantId`, 'is given twice: each seller has one entry');
    seen.add(entry.merchantId);
    const amount = amountAt(entry.amount, `${at}.amount`, 1);
    const discount = entry.discount === undefined ? 0 : amountAt(entry.discount, `${at}.discount`, 0, amount);
    let rate = 0;
    let fixed = 0;
    if (entry.commission !== undefined) {
      if (!isObject(entry.commission)) throw invalid(`${at}.commission`, 'must be an object {rate?, fixed?}');
      onlyKeys(entry.commission, ['rate', 'fixed'], `${at}.commission`);
      if (entry.commission.rate !== undefined) rate = amountAt(entry.commission.rate, `${at}.commission.rate`, 0, 10_000);
      if (entry.commission.fixed !== undefined) fixed = amountAt(entry.commission.fixed, `${at}.commission.fixed`, 0);
    }
    const commission = commissionOf(amount, rate, fixed).total;
    if (commission > amount) {
      throw invalid(`${at}.commission`, `comes to ${commission}, more than the seller's amount ${amount}`);
    }
    return { merchantId: entry.merchantId, amount, discount, commissionRate: rate, commissionFixed: fixed };
  });
  let financing = 0;
  if (config.financing !== undefined) {
    if (!isObject(config.financing)) throw invalid(`${ROOT}.financing`, 'must be an object {amount}');
    onlyKeys(config.financing, ['amount'], `${ROOT}.financing`);
    financing = amountAt(config.financing.amount, `${ROOT}.financing.amount`, 0);
    if (financing >= orderAmount) {
      throw invalid(`${ROOT}.financing.amount`, `must be less than order.amount (${orderAmount}): the card must be charged something`);
    }
  }
  const amounts = sellers.reduce((s, x) => s + x.amount, 0);
  const discounts = sellers.reduce((s, x) => s + x.discount, 0);
  if (amounts !== orderAmount + discounts) {
    throw invalid(`${ROOT}.distribution`, `amounts add up to ${amounts}; they must equal order.amount + the discounts, ${orderAmount + discounts}`);
  }
  return { sellers, financing };
}

/**
 * A split payment's order as stored: as given, marked `platformSplit: true` (a key no request can set, unknown keys of
 * `order` being dropped), so a payment from before splits whose free platformConfig happened to hold a `distribution`
 * is never taken for one. The payment's view leaves the mark out.
 */
export function splitOrderJson(order: object, plan?: SplitPlan): string {
  const json = JSON.stringify({ ...order, [SPLIT_MARK]: true });
  // The plan just checked is the one storedPlan would read back from this JSON: kept, the authorization parses nothing.
  if (plan) keep(json, plan);
  return json;
}

export const SPLIT_MARK = 'platformSplit';
const MARKED = `"${SPLIT_MARK}":true`;

/**
 * Plans read from orders, by the order's JSON: a split payment's plan is read by its authorization, its capture and each
 * of their events, each time from a row read anew. The JSON is the whole key (an order never changes; two payments
 * with the same order have the same plan); emptied when full.
 */
const plans = new Map<string, SplitPlan>();
const MAX_PLANS = 1000;

/** The plan kept in a payment's order (checked when the payment was created), or null for a payment without split. Frozen. */
export function storedPlan(orderJson: string): SplitPlan | null {
  if (!orderJson.includes(MARKED)) return null;
  const plan = plans.get(orderJson);
  if (plan !== undefined) return plan;
  const order = JSON.parse(orderJson) as { amount: number; platformConfig: Record<string, unknown> };
  return keep(orderJson, checkShape(order.platformConfig, order.amount));
}

function keep(orderJson: string, checked: SplitPlan): SplitPlan {
  const plan: SplitPlan = Object.freeze({
    sellers: Object.freeze(checked.sellers.map((s) => Object.freeze({ ...s }))) as SplitPlan['sellers'], financing: checked.financing,
  });
  if (plans.size >= MAX_PLANS) plans.clear();
  plans.set(orderJson, plan);
  return plan;
}
