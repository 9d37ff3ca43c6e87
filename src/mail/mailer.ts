// The SMTP transport (nodemailer). One pooled transport per worker process; the worker calls it outside any
// database transaction. Errors come back as a short text without address or body (safe to store and log).
import nodemailer, { type Transporter } from 'nodemailer';
import type { MailConfig } from '../config.js';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  attachments?: Array<{ filename: string; content: Buffer; contentType: string }>;
}

export type SendOutcome = { ok: true } | { ok: false; error: string };

export interface Mailer {
  send(mail: OutgoingMail): Promise<SendOutcome>;
  close(): void;
}

/** SMTP timeouts: a server that does not answer fails the attempt, which is retried later. */
const TIMEOUT_MS = 15_000;

export function smtpMailer(config: MailConfig): Mailer {
  const transport: Transporter = nodemailer.createTransport(config.smtpUrl, {
    from: config.from,
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
    logger: false,
    debug: false,
  } as never);
  return {
    async send(mail) {
      try {
        await transport.sendMail({ from: config.from, ...mail });
        return { ok: true };
      } catch (err) {
        return { ok: false, error: smtpError(err) };
      }
    },
    close: () => transport.close(),
  };
}

/** The error's code and the server's response code, never its text (it may quote the address). */
function smtpError(err: unknown): string {
  const e = err as { code?: unknown; responseCode?: unknown; command?: unknown };
  const parts = [typeof e.code === 'string' ? e.code : 'ERROR'];
  if (typeof e.responseCode === 'number') parts.push(`SMTP ${e.responseCode}`);
  if (typeof e.command === 'string') parts.push(`at ${e.command.split(' ')[0]}`);
  return parts.join(' ');
}
