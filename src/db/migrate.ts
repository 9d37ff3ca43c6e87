// Versioned, forward-only migrations; run at start and by `motu migrate`.
import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Database } from './database.js';
import * as m0001 from './migrations/0001_core.js';
import * as m0002 from './migrations/0002_payments.js';
import * as m0003 from './migrations/0003_events.js';
import * as m0004 from './migrations/0004_acquirer.js';
import * as m0005 from './migrations/0005_wallet.js';
import * as m0006 from './migrations/0006_refunds.js';
import * as m0007 from './migrations/0007_acquirer_refunds.js';
import * as m0008 from './migrations/0008_mail.js';
import * as m0009 from './migrations/0009_events_order.js';
import * as m0010 from './migrations/0010_partial_indexes.js';
import * as m0011 from './migrations/0011_reference_notify.js';
import * as m0012 from './migrations/0012_pending_merchant_payments.js';
import * as m0013 from './migrations/0013_permanent_references.js';
import * as m0014 from './migrations/0014_card_attempts.js';
import * as m0015 from './migrations/0015_authorization_reference.js';
import * as m0016 from './migrations/0016_endpoint_store.js';
import * as m0017 from './migrations/0017_input_hardening.js';
import * as m0018 from './migrations/0018_payments_hardening.js';
import * as m0019 from './migrations/0019_merchant_timezone.js';
import * as m0020 from './migrations/0020_session_tokens.js';
import * as m0021 from './migrations/0021_authorization_attempts.js';
import * as m0023 from './migrations/0023_ledger.js';
import * as m0024 from './migrations/0024_mail_attempts.js';
import * as m0025 from './migrations/0025_bank_accounts.js';
import * as m0026 from './migrations/0026_payouts.js';
import * as m0027 from './migrations/0027_test_clocks.js';
import * as m0028 from './migrations/0028_disputes.js';
import * as m0029 from './migrations/0029_payout_schedules.js';
import * as m0030 from './migrations/0030_subscriptions.js';
import * as m0031 from './migrations/0031_invoices.js';
import * as m0032 from './migrations/0032_back_office.js';
import * as m0033 from './migrations/0033_payments_list.js';
import * as m0034 from './migrations/0034_contract_acquirer.js';
import * as m0035 from './migrations/0035_monext_settlement.js';
import * as m0036 from './migrations/0036_monext_attempts.js';
import * as m0038 from './migrations/0038_back_office_trust.js';
import * as m0040 from './migrations/0040_document_pdfs.js';
import * as m0041 from './migrations/0041_monext_redirect_url.js';
import * as m0042 from './migrations/0042_invoice_terms.js';
import * as m0043 from './migrations/0043_retention.js';
import * as m0044 from './migrations/0044_merchant_logos.js';
import * as m0045 from './migrations/0045_platform_foundation.js';
import * as m0046 from './migrations/0046_onboarding.js';
import * as m0047 from './migrations/0047_split_payments.js';
import * as m0048 from './migrations/0048_agencies.js';
import * as m0050 from './migrations/0050_running_balances.js';
import * as m0051 from './migrations/0051_agency_client_onboarding.js';
import * as m0052 from './migrations/0052_capture_volume.js';
import * as m0053 from './migrations/0053_payment_statements.js';
import * as m0056 from './migrations/0056_platform_links_reference.js';
import * as m0057 from './migrations/0057_pending_deliveries.js';
import * as m0058 from './migrations/0058_payment_indexes.js';
import * as m0059 from './migrations/0059_acquirer_captured_index.js';
import * as m0063 from './migrations/0063_event_foreign_keys.js';

const MIGRATIONS: Record<string, Migration> = {
  '0001_core': m0001,
  '0002_payments': m0002,
  '0003_events': m0003,
  '0004_acquirer': m0004,
  '0005_wallet': m0005,
  '0006_refunds': m0006,
  '0007_acquirer_refunds': m0007,
  '0008_mail': m0008,
  '0009_events_order': m0009,
  '0010_partial_indexes': m0010,
  '0011_reference_notify': m0011,
  '0012_pending_merchant_payments': m0012,
  '0013_permanent_references': m0013,
  '0014_card_attempts': m0014,
  '0015_authorization_reference': m0015,
  '0016_endpoint_store': m0016,
  '0017_input_hardening': m0017,
  '0018_payments_hardening': m0018,
  '0019_merchant_timezone': m0019,
  '0020_session_tokens': m0020,
  '0021_authorization_attempts': m0021,
  '0023_ledger': m0023,
  '0024_mail_attempts': m0024,
  '0025_bank_accounts': m0025,
  '0026_payouts': m0026,
  '0027_test_clocks': m0027,
  '0028_disputes': m0028,
  '0029_payout_schedules': m0029,
  '0030_subscriptions': m0030,
  '0031_invoices': m0031,
  '0032_back_office': m0032,
  '0033_payments_list': m0033,
  '0034_contract_acquirer': m0034,
  '0035_monext_settlement': m0035,
  '0036_monext_attempts': m0036,
  '0038_back_office_trust': m0038,
  '0040_document_pdfs': m0040,
  '0041_monext_redirect_url': m0041,
  '0042_invoice_terms': m0042,
  '0043_retention': m0043,
  '0044_merchant_logos': m0044,
  '0045_platform_foundation': m0045,
  '0046_onboarding': m0046,
  '0047_split_payments': m0047,
  '0048_agencies': m0048,
  '0050_running_balances': m0050,
  '0051_agency_client_onboarding': m0051,
  '0052_capture_volume': m0052,
  '0053_payment_statements': m0053,
  '0056_platform_links_reference': m0056,
  '0057_pending_deliveries': m0057,
  '0058_payment_indexes': m0058,
  '0059_acquirer_captured_index': m0059,
  '0063_event_foreign_keys': m0063,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** Runs the migrations not run yet, all of them or up to `until` (a migration's name: tests of a migration's data). */
export async function migrate(db: Database, until?: string): Promise<string[]> {
  const migrator = new Migrator({ db: db.kysely, provider });
  const { error, results } = until ? await migrator.migrateTo(until) : await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
