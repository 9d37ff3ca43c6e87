// The statement label an authorization is asked with: the payment's contract's `statementLabel`, what the
// cardholder's bank statement shows. Read outside any transaction, just before the acquirer call.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

export async function statementLabelOf(db: Kysely<DB>, contractId: string): Promise<string | undefined> {
  const contract = await db.selectFrom('contracts').select('statement_label').where('id', '=', contractId).executeTakeFirst();
  return contract?.statement_label || undefined;
}
