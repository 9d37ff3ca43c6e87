import type { DueDateRow, SubscriptionRow } from './subscriptions.table.js';

export function subscriptionView(row: SubscriptionRow) {
  const open = row.status === 'active' || row.status === 'past_due' || row.status === 'waiting_mandate';
  return {
    id: row.id,
    customerId: row.customer_id,
    paymentMethodId: row.payment_method_id,
    status: row.status,
    amount: row.amount,
    currency: row.currency,
    interval: row.interval,
    intervalCount: row.interval_count,
    startDate: row.start_date,
    nextDueDate: open ? row.next_due_date : null,
    cancelAt: row.cancel_at,
    cancelledAt: row.cancelled_at,
    endAfter: row.end_after,
    dueDatesOpened: row.due_count,
    retrySchedule: JSON.parse(row.retry_schedule) as number[],
    description: row.description,
    storeId: row.store_id,
    invoicing: row.invoicing ? (JSON.parse(row.invoicing) as Record<string, unknown>) : null,
    privateData: row.private_data ? (JSON.parse(row.private_data) as Record<string, unknown>) : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface AttemptView {
  at: string;
  paymentId: string;
  outcome: 'succeeded' | 'failed' | 'pending';
  refusalCode: string | null;
}

export function dueDateView(row: DueDateRow, attempts: AttemptView[]) {
  return {
    dueDate: row.due_date,
    status: row.status === 'charging' ? (row.attempts === 0 ? 'scheduled' as const : 'retrying' as const) : row.status,
    attempts,
    nextAttemptAt: row.next_attempt_at,
    invoiceId: row.invoice_id,
  };
}
