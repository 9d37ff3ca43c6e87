import type { Selectable } from 'kysely';
import type { Mode } from '../merchants/merchants.table.js';

export type SubscriptionStatus = 'waiting_mandate' | 'active' | 'past_due' | 'cancelled' | 'ended';
export type Interval = 'day' | 'week' | 'month' | 'year';
export type DueDateStatus = 'scheduled' | 'charging' | 'paid' | 'retrying' | 'unpaid' | 'skipped';

export interface SubscriptionsTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  store_id: string | null;
  customer_id: string;
  payment_method_id: string | null;
  amount: number;
  currency: string;
  interval: Interval;
  interval_count: number;
  start_date: string;
  description: string | null;
  /** JSON array of days after the previous attempt. */
  retry_schedule: string;
  end_after: number | null;
  /** JSON {enabled, daysUntilDue?} as given. */
  invoicing: string | null;
  private_data: string | null;
  status: SubscriptionStatus;
  next_due_date: string;
  due_count: number;
  cancel_at: string | null;
  cancelled_at: string | null;
  test_clock_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface SubscriptionDueDatesTable {
  subscription_id: string;
  due_date: string;
  status: DueDateStatus;
  attempts: number;
  next_attempt_at: string | null;
  claimed_at: string | null;
  test_clock_id: string | null;
  /** The invoice issued for it (subscriptions with invoicing enabled). */
  invoice_id: string | null;
  created_at: string;
}

export type SubscriptionRow = Selectable<SubscriptionsTable>;
export type DueDateRow = Selectable<SubscriptionDueDatesTable>;
