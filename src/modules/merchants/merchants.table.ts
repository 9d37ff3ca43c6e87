import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Role } from '../users/users.table.js';

export type Mode = 'test' | 'live';
export type Permission = 'write' | 'read';
export type StoreKind = 'online' | 'physical';

export interface MerchantsTable {
  id: string;
  name: string;
  created_at: string;
  /** The name customers see on the hosted pages, receipts and mails (else `name`). */
  display_name: string | null;
  /** `#rrggbb`: the Pay button and the SDK's default theme (null: Motu's default blue). */
  primary_color: string | null;
  /** `#rrggbb`: links and focus rings where it reads on the page's background (null: the primary colour). */
  accent_color: string | null;
  /** IANA time zone of the receipts' local time (null: MOTU_TIMEZONE). */
  timezone: string | null;
  /** The legal identity printed on invoices: name, address (JSON {line1, line2?, postalCode, city, country}), the
   * registration number (TAHITI, RIDET, SIREN…) and the tax id. */
  legal_name: string | null;
  address: string | null;
  registration_number: string | null;
  tax_id: string | null;
  /** Printed at the foot of every invoice and credit note (migration 0042). */
  invoice_footer: ColumnType<string | null, string | null | undefined, string | null>;
  /** The late-payment penalty terms on invoices; null: the statutory rate (the ECB's rate plus 10 points). */
  late_payment_terms: ColumnType<string | null, string | null | undefined, string | null>;
  /** The early-payment discount on invoices; null: "no discount for early payment". */
  early_payment_discount: ColumnType<string | null, string | null | undefined, string | null>;
  /** SHA-256 (hex) of the logo the hosted pages show, in its URL (null: no logo, the initial). Migration 0043. */
  logo_digest: ColumnType<string | null, string | null | undefined, string | null>;
  /** 1: a marketplace, whose sellers are merchants linked to it (platform_links). Migration 0045. */
  platform: ColumnType<number, number | undefined, number>;
  /** 1: an agency, which manages client accounts under mandates. Migration 0045. */
  agency: ColumnType<number, number | undefined, number>;
  /** When its payment account was opened (it can collect); null: not open yet. Migration 0045. */
  opened_at: ColumnType<string | null, string | null | undefined, string | null>;
}

/** The logo's bytes, checked when uploaded (logo-image.ts). */
export interface MerchantLogosTable {
  merchant_id: string;
  digest: string;
  content_type: string;
  width: number;
  height: number;
  image: Buffer;
  created_at: string;
}

export interface WebhookSecretsTable {
  merchant_id: string;
  mode: Mode;
  secret: string;
  previous_secret: string | null;
  /** Until this instant the previous secret's signature is also sent. */
  previous_valid_until: string | null;
  updated_at: string;
}

export interface ContractsTable {
  id: string;
  merchant_id: string;
  statement_label: string;
  commission_rate: number;
  fixed_fee: number;
  authorization_fee: number;
  tax_rate: number;
  /** EUR cents Motu charges per chargeback (no tax on it). */
  dispute_fee: number;
  active: number;
  is_default: number;
  created_at: string;
  /** Where this contract's live payments go: 'simulator' (no live acquirer: 503) or 'monext' (migration 0034). */
  acquirer: ColumnType<string, string | undefined, string>;
  /** The acquirer's credentials, JSON sealed by the SecretBox; null when none were given. */
  acquirer_config_sealed: string | null;
}

export interface StoresTable {
  id: string;
  merchant_id: string;
  code: string;
  name: string;
  kind: StoreKind;
  active: number;
  contract_id: string | null;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  key_hash: string;
  /** Last four characters, to tell keys apart in listings. */
  last4: string;
  permission: Permission;
  store_id: string | null;
  created_at: string;
  revoked_at: string | null;
  /** The back-office user who made the key (null: made by the operator). */
  created_by: string | null;
  /** The ceiling of a back-office key: its maker's role, checked on every request (null: the merchant's own key). */
  role: Role | null;
}

export interface SettingsTable {
  name: string;
  value: string;
}

export interface SequenceTable {
  id: Generated<number>;
}

export type Merchant = Selectable<MerchantsTable>;
export type Contract = Selectable<ContractsTable>;
export type Store = Selectable<StoresTable>;
export type ApiKey = Selectable<ApiKeysTable>;
