import type { Selectable } from 'kysely';
import type { Mode } from '../merchants/merchants.table.js';

/** A seller linked to a platform in one mode; unlinking keeps the row (history), at most one current per pair and mode. */
export interface PlatformLinksTable {
  id: string;
  platform_id: string;
  seller_id: string;
  mode: Mode;
  /** The onboarding case that made the seller (obc_…); null for a link made otherwise. */
  case_id: string | null;
  linked_at: string;
  unlinked_at: string | null;
}

export type PlatformLink = Selectable<PlatformLinksTable>;
