// Row type of the merchant's webhook endpoints: where its events are delivered, besides each payment's notificationUrl.
import type { Selectable } from 'kysely';
import type { Mode } from '../merchants/merchants.table.js';

export type EndpointKind = 'merchant' | 'agency';

export interface WebhookEndpointsTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  kind: EndpointKind;
  /** Registered by a key attached to this store: receives only its events, seen only by its keys and unbound ones. */
  store_id: string | null;
  url: string;
  /** JSON array of filters: exact types, `prefix.*`, or `*`. */
  events: string;
  description: string | null;
  enabled: number;
  /** `failing` when the worker took it out of service after the fifth failed retry; `merchant` when disabled by PATCH. */
  disabled_reason: string | null;
  disabled_at: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
