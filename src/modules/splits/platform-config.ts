// `order.platformConfig` of a split payment checked against the database: the caller is a platform, and each seller is
// linked to it in this mode with an open account (the shape and the sums: split-config.ts).
import type { Kysely } from 'kysely';
import type { ReferenceCache } from '../../db/reference-cache.js';
import type { DB } from '../../db/schema.js';
import type { Owner } from '../merchants/principal.js';
import { isPlatform, linkedOpenSeller } from '../platforms/platform-links.js';
import { asksForSplit, checkShape, invalid, ROOT } from './split-config.js';
import type { SplitPlan } from './split-arithmetic.js';

export { asksForSplit, splitOrderJson } from './split-config.js';

/**
 * The split plan of the order, or null when the order asks for none. The shape and arithmetic first (no database
 * read), then the caller's platform flag and each seller's link: from `reference` when given (merchants and
 * platform_links are reference tables, so a link or an account changed anywhere empties it), else read. `charge`: what
 * the card is to pay (order.amount − financing).
 */
export async function splitPlanOf(
  q: Kysely<DB>, owner: Owner, order: { amount: number; platformConfig?: unknown },
  options: { isInclTaxAmount?: boolean; reference?: ReferenceCache } = {},
): Promise<{ plan: SplitPlan; charge: number } | null> {
  const config = order.platformConfig;
  if (!asksForSplit(config)) return null;
  const { reference } = options;
  const cached = <T>(key: string, load: () => Promise<T>) => (reference ? reference.get(key, load) : load());
  if (!(await cached(`platform:${owner.merchantId}`, () => isPlatform(q, owner.merchantId)))) {
    throw invalid(ROOT, 'splits a payment between sellers: only a platform (a marketplace) may do so; the operator makes a merchant one');
  }
  const plan = checkShape(config, order.amount);
  if (options.isInclTaxAmount === false) throw invalid('isInclTaxAmount', 'must be true for a split payment: the sellers\' amounts include their taxes');
  for (const [i, seller] of plan.sellers.entries()) {
    const key = { platformId: owner.merchantId, sellerId: seller.merchantId, mode: owner.mode };
    if (seller.merchantId === owner.merchantId
      || !(await cached(`linked-open-seller:${key.platformId}:${key.mode}:${key.sellerId}`, () => linkedOpenSeller(q, key)))) {
      throw invalid(`${ROOT}.distribution[${i}].merchantId`, `is not a seller linked to this platform in ${owner.mode} mode with an open account`);
    }
  }
  return { plan, charge: order.amount - plan.financing };
}

