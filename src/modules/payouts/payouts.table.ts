import type { Selectable } from 'kysely';
import type { Mode } from '../merchants/merchants.table.js';

/** pending → in_transit → paid | failed; cancelled from pending. */
export type PayoutStatus = 'pending' | 'in_transit' | 'paid' | 'failed' | 'cancelled';

export interface PayoutsTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  amount: number;
  currency: string;
  status: PayoutStatus;
  automatic: number;
  bank_account_id: string;
  description: string | null;
  arrival_date: string;
  failure_reason: string | null;
  failure_message: string | null;
  answer_due_at: string | null;
  created_at: string;
  updated_at: string;
}

export type PayoutRow = Selectable<PayoutsTable>;
