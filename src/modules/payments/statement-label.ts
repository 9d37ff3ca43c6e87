// The statement label an authorization is asked with: the payment's contract's `statementLabel`, what the
// cardholder's bank statement shows. Read outside any transaction, just before the acquirer call.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { compiledQuery } from '../../db/compiled.js';

// Compiled once (src/db/compiled.ts): every authorization reads it.
const labelOf = compiledQuery((db, p: { id: string }) => db.selectFrom('contracts').select('statement_label').where('id', '=', p.id));

export async function statementLabelOf(db: Kysely<DB>, contractId: string): Promise<string | undefined> {
  const contract = await labelOf.executeTakeFirst(db, { id: contractId });
  return contract?.statement_label || undefined;
}
