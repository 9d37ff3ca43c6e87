// Row types of the ledger: balance transactions (what the merchant sees), postings and their lines (the double entry).
import type { Mode } from '../merchants/merchants.table.js';

export const TRANSACTION_TYPES = [
  'payment', 'payment_fee', 'refund', 'refund_fee', 'dispute', 'dispute_fee', 'dispute_reversal', 'payout',
  'payout_failure', 'adjustment', 'platform_share', 'platform_commission',
] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

/** Where money sits. The merchant's two accounts make its balance; the others are the counterparties. */
export const ACCOUNTS = ['merchant_pending', 'merchant_available', 'acquirer_clearing', 'motu_revenue', 'payouts_in_transit', 'platform_clearing'] as const;
export type Account = (typeof ACCOUNTS)[number];

export interface BalanceTransactionsTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  store_id: string | null;
  type: TransactionType;
  amount: number;
  currency: string;
  amount_eur: number;
  pending: number;
  source_type: string;
  source_id: string;
  payment_id: string | null;
  description: string | null;
  created_at: string;
}
export type BalanceTransactionRow = BalanceTransactionsTable;

export interface LedgerPostingsTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  currency: string;
  kind: 'entry' | 'release';
  transaction_id: string;
  created_at: string;
}

export interface LedgerLinesTable {
  posting_id: string;
  merchant_id: string;
  mode: Mode;
  store_id: string | null;
  currency: string;
  account: Account;
  amount: number;
}

export interface PayoutItemsTable {
  transaction_id: string;
  payout_id: string;
}
