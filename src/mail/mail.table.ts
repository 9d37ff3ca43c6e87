import type { Selectable } from 'kysely';
import type { Mode } from '../modules/merchants/merchants.table.js';

/**
 * receipt: subject is a payment (pay_…); card_link: subject is a card link (cl_…); invoice: an invoice sent (inv_…);
 * invitation: a back-office user invited, `usr_…:<set-up nonce>` (a new invitation of the same user is a new mail).
 */
export type MailKind = 'receipt' | 'card_link' | 'invoice' | 'invitation';
/** pending (due at next_attempt_at) → sending (claimed, leased) → sent | failed (retries exhausted) | skipped (no longer due: link used or cancelled). */
export type MailStatus = 'pending' | 'sending' | 'sent' | 'failed' | 'skipped';

/** The mail outbox: written on the transaction of the state change, sent by the worker role. */
export interface MailJobsTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  kind: MailKind;
  subject_id: string;
  /** The address as known at the state change. Never logged at info level. */
  recipient: string;
  /** fr | en: the language of the mail. */
  locale: string;
  status: MailStatus;
  attempts: number;
  next_attempt_at: string;
  claim_token: string | null;
  lease_until: string | null;
  /** The SMTP error of the last failed attempt (code and response line, no address, no body). */
  last_error: string | null;
  sent_at: string | null;
  created_at: string;
  updated_at: string;
}

export type MailJobRow = Selectable<MailJobsTable>;

export type MailOutcome = 'sent' | 'failed' | 'lost' | 'skipped';

/** One attempt to send a mail job. */
export interface MailAttemptsTable {
  id: string;
  mail_id: string;
  attempt: number;
  started_at: string;
  finished_at: string;
  outcome: MailOutcome;
  /** The SMTP error (code and response line), or why the attempt was lost; never an address or a body. */
  error: string | null;
}
