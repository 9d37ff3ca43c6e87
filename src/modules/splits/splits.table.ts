// Row types of split payments: the share of each refund taken from each seller (migration 0047).
export interface RefundSharesTable {
  refund_id: string;
  payment_id: string;
  /** The seller the share is taken from. */
  merchant_id: string;
  amount: number;
  /** The commission the share gives back to the seller. */
  commission: number;
}
