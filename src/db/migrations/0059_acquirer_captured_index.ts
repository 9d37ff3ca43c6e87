import { sql, type Kysely } from 'kysely';

// The simulator's `acquirer_authorizations_captured` (mode, captured_at) held an entry for every authorization, with a
// null capture date until its capture, which then moved it: two of its pages written per card payment, the entry
// made at the authorization and the one moved at the capture. Its only readers, the simulated settlement report and
// the disputes it notifies (src/acquirer/simulator/simulator.ts), look for captured authorizations and say so
// (`captured_at is not null`, beside its range): it keeps only those, each entered once, at its capture.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('acquirer_authorizations_captured').execute();
  await db.schema.createIndex('acquirer_authorizations_captured').on('acquirer_authorizations').columns(['mode', 'captured_at'])
    .where(sql.ref('captured_at'), 'is not', null).execute();
}
