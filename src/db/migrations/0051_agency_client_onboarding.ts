import type { Kysely } from 'kysely';

// A new business onboarding through an agency's invitation: its onboarding session and case name the invitation
// (`agi_…`). Such a case reports to the agency (its platform_id holds the agency's id, the merchant that hears its
// events), is never linked to a platform, and its approval accepts the invitation. Null for a platform's sellers.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('onboarding_sessions').addColumn('invitation_id', 'text').execute();
  await db.schema.alterTable('onboarding_cases').addColumn('invitation_id', 'text').execute();
  await db.schema.createIndex('onboarding_cases_invitation').on('onboarding_cases').columns(['invitation_id', 'created_at']).execute();
}
