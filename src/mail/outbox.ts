// Queueing a mail: a row of mail_jobs written on the caller's transaction, so the mail exists if and only if
// the state change that asks for it commits. The worker role sends it (mail.worker.ts). Without a mailer
// (MOTU_SMTP_URL unset) the outbox is absent and callers queue nothing.
import { pageLang } from '../shared/lang.js';
import type { Trx } from '../db/database.js';
import type { Clock } from '../shared/clock.js';
import { newId } from '../shared/ids.js';
import type { Mode } from '../modules/merchants/merchants.table.js';
import type { MailKind } from './mail.table.js';

export interface MailRequest {
  merchantId: string;
  mode: Mode;
  kind: MailKind;
  subjectId: string;
  recipient: string;
  locale: string;
}

export class MailOutbox {
  constructor(private readonly clock: Clock) {}

  /** Queues the mail; a second request for the same (kind, subject) is ignored. Returns the job id or null. */
  async enqueue(trx: Trx, request: MailRequest): Promise<string | null> {
    const now = this.clock.now().toISOString();
    const id = newId('mail');
    const res = await trx.insertInto('mail_jobs').values({
      id, merchant_id: request.merchantId, mode: request.mode, kind: request.kind, subject_id: request.subjectId,
      recipient: request.recipient, locale: pageLang(request.locale), status: 'pending', attempts: 0,
      next_attempt_at: now, claim_token: null, lease_until: null, last_error: null, sent_at: null, created_at: now, updated_at: now,
    }).onConflict((oc) => oc.columns(['kind', 'subject_id']).doNothing()).executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0) === 1 ? id : null;
  }
}

/** A plausible single address (the same rule as the checkout's email field), no header injection. */
export function mailable(address: string | null | undefined): address is string {
  return typeof address === 'string' && address.length <= 254 && /^[^\s@<>",;]+@[^\s@<>",;]+\.[^\s@<>",;]+$/.test(address);
}
