// The mails Motu queued about one object (an invoice sent, a card link, a receipt), for the team to know what
// happened: whether a mail left, to whom, and whether a mail server is configured at all (MOTU_SMTP_URL). Read from
// the mail outbox, so the page says what was done rather than guessing it from the rules that decide it.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { Database } from '../../db/database.js';
import { signedIn } from '../users/users.routes.js';

const doc = { tags: ['back-office'], hide: true } as const;

const MailsQuery = Type.Object({
  kind: Type.Union(['receipt', 'card_link', 'invoice'].map((k) => Type.Literal(k))),
  subjectId: Type.String({ minLength: 1, maxLength: 64 }),
}, { additionalProperties: false });

export interface MailsDeps {
  db: Database;
  /** A mail server is configured: mails are queued and sent. */
  mailer: boolean;
}

export function mailsRoutes(deps: MailsDeps) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: Static<typeof MailsQuery> }>('/mails', { schema: { ...doc, querystring: MailsQuery } }, async (request) => {
      const session = signedIn(request);
      const rows = await deps.db.kysely.selectFrom('mail_jobs')
        .select(['kind', 'recipient', 'status', 'sent_at', 'created_at'])
        .where('merchant_id', '=', session.merchantId).where('mode', '=', session.mode).where('kind', '=', request.query.kind as 'receipt' | 'card_link' | 'invoice')
        .where('subject_id', '=', request.query.subjectId)
        .orderBy('created_at', 'desc').limit(20).execute();
      return {
        mailer: deps.mailer,
        data: rows.map((r) => ({ kind: r.kind, recipient: r.recipient, status: r.status, sentAt: r.sent_at, createdAt: r.created_at })),
      };
    });
  };
}
