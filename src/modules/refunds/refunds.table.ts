import type { Selectable } from 'kysely';
import type { Mode } from '../merchants/merchants.table.js';

/** pending: reserved on the payment while the acquirer answers; succeeded; failed (the acquirer said no). */
export type RefundStatus = 'pending' | 'succeeded' | 'failed';

export interface RefundsTable {
  /** `re_…` */
  id: string;
  payment_id: string;
  merchant_id: string;
  mode: Mode;
  status: RefundStatus;
  /** Original currency minor unit (francs for XPF, cents for EUR). */
  amount: number;
  currency: string;
  amount_eur_cents: number;
  reason: string | null;
  failure_reason: string | null;
  created_at: string;
  updated_at: string;
}

export type RefundRow = Selectable<RefundsTable>;
