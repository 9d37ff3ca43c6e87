import type { Mode } from '../modules/merchants/merchants.table.js';

export interface IdempotencyKeysTable {
  merchant_id: string;
  mode: Mode;
  /** The sending API key's store id; '' for the merchant's unbound keys, which share one scope. */
  scope: string;
  key: string;
  /** SHA-256 of method, path and body: the same key with another request is a conflict. */
  request_hash: string;
  state: 'in_flight' | 'done';
  status_code: number | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
}
