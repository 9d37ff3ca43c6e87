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

export type PayoutInterval = 'daily' | 'weekly' | 'monthly' | 'manual';
export const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface PayoutSchedulesTable {
  merchant_id: string;
  mode: Mode;
  interval: PayoutInterval;
  weekly_anchor: Weekday;
  /** 1–31; 31 (or more than the month has): the month's last day. */
  monthly_anchor: number;
  delay_days: number;
  /** YYYY-MM-DD (UTC) of the last automatic run. */
  last_run_on: string | null;
  updated_at: string;
}

export type PayoutScheduleRow = Selectable<PayoutSchedulesTable>;
