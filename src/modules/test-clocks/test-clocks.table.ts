import type { Selectable } from 'kysely';
import type { Mode } from '../merchants/merchants.table.js';

/** ready: frozen at frozen_time; advancing: the worker is running what falls due up to target_time. */
export type TestClockStatus = 'ready' | 'advancing';

export interface TestClocksTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  name: string | null;
  frozen_time: string;
  status: TestClockStatus;
  target_time: string | null;
  claimed_at: string | null;
  created_at: string;
  updated_at: string;
}

export type TestClockRow = Selectable<TestClocksTable>;
