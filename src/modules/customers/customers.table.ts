import type { Selectable } from 'kysely';
import type { Mode } from '../merchants/merchants.table.js';

export interface CustomersTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  email: string | null;
  /** Lower-cased email: uniqueness and look-ups ignore case. */
  email_key: string | null;
  external_id: string | null;
  name: string | null;
  phone: string | null;
  /** JSON text */
  address: string | null;
  /** JSON text */
  metadata: string | null;
  /** Test mode: the test clock the customer lives on; its payments, sessions and disputes read the clock's time. */
  test_clock_id: string | null;
  created_at: string;
  updated_at: string;
}

export type CustomerRow = Selectable<CustomersTable>;
