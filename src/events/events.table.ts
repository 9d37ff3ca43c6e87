// Row types of the outbox and its deliveries: events as recorded, one delivery per target, one row per attempt.
import type { Generated, Selectable } from 'kysely';
import type { Mode } from '../modules/merchants/merchants.table.js';

export interface WebhookEventsTable {
  /** Insertion sequence, assigned by the database: the order events were recorded in (migration 0009). */
  seq: Generated<number>;
  id: string;
  merchant_id: string;
  mode: Mode;
  type: string;
  payment_id: string | null;
  /** The compact JSON envelope `{id,type,createdAt,data}`: the exact bytes every delivery sends. */
  body: string;
  created_at: string;
}

/** pending: due at next_attempt_at; sending: claimed by a worker until lease_until; succeeded; abandoned. */
export type DeliveryStatus = 'pending' | 'sending' | 'succeeded' | 'abandoned';

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  merchant_id: string;
  mode: Mode;
  /** null for a payment's notificationUrl. */
  endpoint_id: string | null;
  url: string;
  target_key: string;
  /** The event's seq: rows due at the same instant are claimed in the order their events were recorded. */
  event_seq: number;
  status: DeliveryStatus;
  /** Attempts made so far (the first send is attempt 1; retries are 2..6). */
  attempt_count: number;
  next_attempt_at: string;
  claim_token: string | null;
  lease_until: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  event_id: string;
  attempt: number;
  started_at: string;
  status_code: number | null;
  latency_ms: number;
  succeeded: number;
  response_excerpt: string | null;
  error: string | null;
}

export type WebhookEventRow = Selectable<WebhookEventsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WebhookAttemptRow = Selectable<WebhookAttemptsTable>;
