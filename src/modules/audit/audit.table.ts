import type { Selectable } from 'kysely';
import type { Mode } from '../merchants/merchants.table.js';

export type AuditOutcome = 'pending' | 'succeeded' | 'failed';

export interface AuditLogTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  user_id: string;
  /** The back-office key that made the change (user_id is then its maker); null for a change made with the session. */
  key_id: string | null;
  /** The agency that made the change on its client's account under a mandate (user_id is then the agency's id). */
  agency_id: string | null;
  action: string;
  object_id: string | null;
  outcome: AuditOutcome;
  status_code: number | null;
  created_at: string;
}
export type AuditRow = Selectable<AuditLogTable>;
