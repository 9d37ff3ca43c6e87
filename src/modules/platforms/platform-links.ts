// Platforms (marketplaces) and their sellers: who is a platform or an agency (flags the operator sets), and the links
// between a platform and the merchants it onboarded. Plain functions on the caller's transaction (or the database's
// Kysely for a read), so the onboarding, split payments, agencies and the back-office use the same rules:
//
//   await requirePlatform(trx, principal);                                   // 403 PERMISSION_DENIED otherwise
//   await linkSeller(trx, { platformId, sellerId, mode, caseId, at });        // + merchant.linked to the platform
//   if (!(await linkedOpenSeller(trx, { platformId, sellerId, mode }))) …     // splits: every seller linked and open
import type { Kysely } from 'kysely';
import type { Trx } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import { recordEvent } from '../../events/outbox.js';
import { payloads } from '../../events/payloads.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Mode } from '../merchants/merchants.table.js';
import type { Principal } from '../merchants/principal.js';
import type { PlatformLink } from './platforms.table.js';

/** A transaction, or the database's Kysely for a read outside one. */
export type Queryable = Kysely<DB>;

async function flagsOf(q: Queryable, merchantId: string) {
  return q.selectFrom('merchants').select(['platform', 'agency', 'opened_at']).where('id', '=', merchantId).executeTakeFirst();
}

/** The merchant is a marketplace (`platform: true` by the operator). */
export async function isPlatform(q: Queryable, merchantId: string): Promise<boolean> {
  return (await flagsOf(q, merchantId))?.platform === 1;
}

/** The merchant is an agency (`agency: true` by the operator). */
export async function isAgency(q: Queryable, merchantId: string): Promise<boolean> {
  return (await flagsOf(q, merchantId))?.agency === 1;
}

/** The merchant's payment account is open: it can collect. */
export async function isOpen(q: Queryable, merchantId: string): Promise<boolean> {
  const row = await flagsOf(q, merchantId);
  return Boolean(row?.opened_at);
}

/**
 * 403 PERMISSION_DENIED unless the caller speaks for a platform with its own key (an agency acting for a client
 * cannot use the client's platform routes). Checked on every call, so turning the flag off holds for keys minted before.
 */
export async function requirePlatform(q: Queryable, principal: Principal): Promise<void> {
  if (principal.actingFor || !(await isPlatform(q, principal.merchantId))) {
    throw new AppError('PERMISSION_DENIED', 'Only a platform (a marketplace) may use this route; the operator makes a merchant one', { required: 'platform' });
  }
}

/** 403 PERMISSION_DENIED unless the caller is an agency with its own key. */
export async function requireAgency(q: Queryable, principal: Principal): Promise<void> {
  if (principal.actingFor || !(await isAgency(q, principal.merchantId))) {
    throw new AppError('PERMISSION_DENIED', 'Only an agency may use this route; the operator makes a merchant one', { required: 'agency' });
  }
}

export interface LinkKey {
  platformId: string;
  sellerId: string;
  mode: Mode;
}

/** The current link of the seller to the platform in that mode (not unlinked), if any. */
export async function currentLink(q: Queryable, key: LinkKey): Promise<PlatformLink | undefined> {
  return q.selectFrom('platform_links').selectAll()
    .where('platform_id', '=', key.platformId).where('seller_id', '=', key.sellerId).where('mode', '=', key.mode)
    .where('unlinked_at', 'is', null)
    .executeTakeFirst();
}

/** Whether the seller can be paid through the platform in that mode: linked, not unlinked, and its account open. */
export async function linkedOpenSeller(q: Queryable, key: LinkKey): Promise<boolean> {
  const row = await q.selectFrom('platform_links as l').innerJoin('merchants as m', 'm.id', 'l.seller_id').select('l.id')
    .where('l.platform_id', '=', key.platformId).where('l.seller_id', '=', key.sellerId).where('l.mode', '=', key.mode)
    .where('l.unlinked_at', 'is', null).where('m.opened_at', 'is not', null)
    .executeTakeFirst();
  return row !== undefined;
}

/** Every seller currently linked to the platform in that mode (ids). */
export async function linkedSellerIds(q: Queryable, platformId: string, mode: Mode): Promise<string[]> {
  const rows = await q.selectFrom('platform_links').select('seller_id')
    .where('platform_id', '=', platformId).where('mode', '=', mode).where('unlinked_at', 'is', null).execute();
  return rows.map((r) => r.seller_id);
}

/**
 * Links the seller to the platform in that mode and records `merchant.linked` {merchantId, platformId, caseId?} on
 * the platform's outbox, on the caller's transaction. Already linked: the current link, no second event.
 */
export async function linkSeller(trx: Trx, input: LinkKey & { caseId?: string | null; at: Date }): Promise<PlatformLink> {
  if (input.platformId === input.sellerId) throw new AppError('BUSINESS_RULE_VIOLATION', 'A platform cannot be its own seller');
  const existing = await currentLink(trx, input);
  if (existing) return existing;
  const row: PlatformLink = {
    id: newId('plk'), platform_id: input.platformId, seller_id: input.sellerId, mode: input.mode,
    case_id: input.caseId ?? null, linked_at: input.at.toISOString(), unlinked_at: null,
  };
  await trx.insertInto('platform_links').values(row).execute();
  await recordEvent(trx, {
    merchantId: input.platformId, mode: input.mode, at: input.at,
    ...payloads.merchantLinked({ merchantId: input.sellerId, platformId: input.platformId, ...(row.case_id ? { caseId: row.case_id } : {}) }),
  });
  return row;
}

/**
 * Ends the current link and records `merchant.unlinked` on the platform's outbox; the seller's account stays open
 * (it can no longer be paid through the platform). 404 when the seller is not linked to the platform in that mode.
 * Exactly once under concurrent calls: the update is guarded by `unlinked_at is null`.
 */
export async function unlinkSeller(trx: Trx, input: LinkKey & { at: Date }): Promise<PlatformLink> {
  const link = await currentLink(trx, input);
  if (!link) throw notFound('seller', input.sellerId);
  const at = input.at.toISOString();
  const res = await trx.updateTable('platform_links').set({ unlinked_at: at })
    .where('id', '=', link.id).where('unlinked_at', 'is', null).executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) throw notFound('seller', input.sellerId);
  await recordEvent(trx, {
    merchantId: input.platformId, mode: input.mode, at: input.at,
    ...payloads.merchantUnlinked({ merchantId: input.sellerId, platformId: input.platformId, ...(link.case_id ? { caseId: link.case_id } : {}) }),
  });
  return { ...link, unlinked_at: at };
}
