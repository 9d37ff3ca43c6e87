// What a payment receipt states beyond the session and the payment: the merchant's local time zone and the label on
// the cardholder's statement. Read from the rows by the checkout (success page) and by the mail sender (receipts).
import type { Database } from '../../db/database.js';
import type { Merchant } from '../merchants/merchants.table.js';
import type { PaymentRow } from '../payments/payments.table.js';

export interface ReceiptFacts {
  /** IANA time zone of the dates: the merchant's, else MOTU_TIMEZONE. */
  timezone: string;
  /** The contract's statementLabel (what the card statement shows), or null. */
  statementLabel: string | null;
}

/** The receipt's facts from the rows: the merchant's time zone (else `defaultTimezone`), the contract's label. */
export async function receiptFacts(db: Database, payment: PaymentRow, merchant: Merchant, defaultTimezone: string): Promise<ReceiptFacts> {
  const contract = await db.kysely.selectFrom('contracts').select('statement_label').where('id', '=', payment.contract_id).executeTakeFirst();
  return { timezone: merchant.timezone ?? defaultTimezone, statementLabel: contract?.statement_label || null };
}
