// Operator-side rules of merchants: created with their keys, webhook secrets and default contract; read with their
// contracts and stores; renamed and branded. Contracts, stores and API keys have their own services.
import type { SecretBox } from '../../shared/secret-box.js';
import type { Database, Trx } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, invalidField, notFound } from '../../shared/errors.js';
import { sha256Hex } from '../../shared/hash.js';
import { newId, randomToken } from '../../shared/ids.js';
import type { Merchant } from './merchants.table.js';
import { contractView, DEFAULT_CONTRACT } from './contracts.service.js';
import { insertKey, newSecretKey } from './api-keys.js';
import { storeView } from './stores.service.js';
import { isHexColor, themeOf } from './branding.js';
import { MAX_LOGO_BYTES, MAX_LOGO_SIDE, MIN_LOGO_SIDE, readLogo } from './logo-image.js';
import { canonicalTimeZone } from '../../shared/timezone.js';
import { allRows, paginate, type PageRequest } from '../../shared/pagination.js';

export function newWebhookSecret(): string {
  return `whsec_${randomToken(32)}`;
}

export interface LegalAddress {
  line1: string;
  line2?: string;
  postalCode: string;
  city: string;
  country: string;
}

export interface MerchantPatchInput {
  legalName?: string | null;
  address?: LegalAddress | null;
  registrationNumber?: string | null;
  taxId?: string | null;
  invoiceFooter?: string | null;
  latePaymentTerms?: string | null;
  earlyPaymentDiscount?: string | null;
  name?: string;
  displayName?: string | null;
  primaryColor?: string | null;
  accentColor?: string | null;
  timezone?: string | null;
  /** A marketplace: its keys may onboard and manage sellers (/api/v1/platform). */
  platform?: boolean;
  /** An agency: its keys may manage client accounts under mandates. */
  agency?: boolean;
}

/** What a merchant is made with: a name, and for a seller onboarded by a platform its legal identity. */
export interface NewMerchant {
  name: string;
  legalName?: string | null;
  registrationNumber?: string | null;
  address?: LegalAddress | null;
  /** false: the payment account is opened later (a seller, once its case is approved); default true. */
  open?: boolean;
}

/** Invoice texts are kept trimmed; one made only of spaces means "not set". */
function blankToNull(value: string | null): string | null {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}

export function merchantView(m: Merchant) {
  const theme = themeOf(m);
  return {
    id: m.id,
    name: m.name,
    displayName: m.display_name,
    primaryColor: m.primary_color,
    accentColor: m.accent_color,
    /** IANA time zone of the receipts; null: the service's default (MOTU_TIMEZONE). */
    timezone: m.timezone,
    legalName: m.legal_name,
    address: m.address ? (JSON.parse(m.address) as LegalAddress) : null,
    registrationNumber: m.registration_number,
    taxId: m.tax_id,
    /** What invoices and credit notes add to the legal identity (null: the statutory wording, no footer). */
    invoiceFooter: m.invoice_footer,
    latePaymentTerms: m.late_payment_terms,
    earlyPaymentDiscount: m.early_payment_discount,
    /** The logo on the hosted pages, a path on this server that changes with the picture; null: the name's initial. */
    logoUrl: logoPath(m),
    /** The text colour drawn on primaryColor (white or dark, by contrast), null without colours. */
    onPrimaryColor: theme?.onPrimary ?? null,
    /** A marketplace (its keys onboard and manage sellers). */
    platform: m.platform === 1,
    /** An agency (its keys manage client accounts under mandates). */
    agency: m.agency === 1,
    /** When its payment account was opened; null: not open yet (a seller whose onboarding is not approved). */
    openedAt: m.opened_at,
    createdAt: m.created_at,
  };
}

/** Where the hosted pages load the merchant's logo: the digest makes each picture its own, long-cached URL. */
export function logoPath(m: Pick<Merchant, 'id' | 'logo_digest'>): string | null {
  return m.logo_digest ? `/branding/logos/${encodeURIComponent(m.id)}/${m.logo_digest}` : null;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const LOGO_RULE = `must be a PNG, JPEG or WebP image (SVG is refused) of at most ${MAX_LOGO_BYTES / 1024} KB, `
  + `${MIN_LOGO_SIDE} to ${MAX_LOGO_SIDE} pixels a side`;

export class MerchantsService {
  /** `box` seals the webhook signing secrets at rest (src/shared/secret-box.ts). */
  constructor(private readonly db: Database, private readonly clock: Clock, private readonly box: SecretBox) {}

  private now(): string {
    return this.clock.now().toISOString();
  }

  async createMerchant(input: { name: string }) {
    return this.db.transaction((trx) => this.insertMerchant(trx, input));
  }

  /**
   * A merchant with its keys, webhook secrets and default contract, written on the caller's transaction (an approved
   * onboarding case creates its seller in the transaction of the decision). Open at once unless `open` is false.
   */
  async insertMerchant(trx: Trx, input: NewMerchant) {
    const id = newId('mer');
    const now = this.now();
    const testSecretKey = newSecretKey('test');
    const liveSecretKey = newSecretKey('live');
    const testWebhookSecret = newWebhookSecret();
    const liveWebhookSecret = newWebhookSecret();
    const contractId = newId('mcf');
    {
      await trx.insertInto('merchants').values({
        id, name: input.name, created_at: now, opened_at: input.open === false ? null : now,
        legal_name: input.legalName ?? null, registration_number: input.registrationNumber ?? null,
        address: input.address ? JSON.stringify(input.address) : null, tax_id: null,
      }).execute();
      await trx
        .insertInto('webhook_secrets')
        .values([
          { merchant_id: id, mode: 'test', secret: this.box.seal(testWebhookSecret), previous_secret: null, previous_valid_until: null, updated_at: now },
          { merchant_id: id, mode: 'live', secret: this.box.seal(liveWebhookSecret), previous_secret: null, previous_valid_until: null, updated_at: now },
        ])
        .execute();
      await trx
        .insertInto('contracts')
        .values({
          id: contractId,
          merchant_id: id,
          statement_label: input.name.slice(0, 22).toUpperCase(),
          commission_rate: DEFAULT_CONTRACT.commissionRate,
          fixed_fee: DEFAULT_CONTRACT.fixedFee,
          authorization_fee: DEFAULT_CONTRACT.authorizationFee ?? 0,
          tax_rate: DEFAULT_CONTRACT.taxRate ?? 1600,
          dispute_fee: DEFAULT_CONTRACT.disputeFee ?? 1500,
          active: 1,
          is_default: 1,
          created_at: now,
        })
        .execute();
      await insertKey(trx, id, { mode: 'test' }, testSecretKey, now);
      await insertKey(trx, id, { mode: 'live' }, liveSecretKey, now);
    }
    return { id, name: input.name, testSecretKey, liveSecretKey, testWebhookSecret, liveWebhookSecret, defaultContractId: contractId };
  }

  async getMerchant(id: string) {
    const merchant = await this.db.kysely.selectFrom('merchants').selectAll().where('id', '=', id).executeTakeFirst();
    if (!merchant) throw notFound('merchant', id);
    const contracts = await this.db.kysely.selectFrom('contracts').selectAll().where('merchant_id', '=', id).orderBy('created_at').execute();
    const stores = await this.db.kysely.selectFrom('stores').selectAll().where('merchant_id', '=', id).orderBy('created_at').execute();
    return {
      ...merchantView(merchant),
      contracts: contracts.map((c) => contractView(c, this.box)),
      stores: stores.map(storeView),
    };
  }

  /** Merchants, newest first, a page at a time (the admin API's list). */
  async listMerchants(page: PageRequest = {}) {
    const result = await paginate(this.db.kysely.selectFrom('merchants').selectAll(), page,
      (id) => this.db.kysely.selectFrom('merchants').select('created_at').where('id', '=', id).executeTakeFirst());
    return { data: result.data.map(merchantView), hasMore: result.hasMore };
  }

  /** Every merchant, newest first, read a batch at a time (`motu merchants list`). */
  async allMerchants() {
    const all: ReturnType<typeof merchantView>[] = [];
    for await (const rows of allRows(this.db.kysely.selectFrom('merchants').selectAll())) all.push(...rows.map(merchantView));
    return all;
  }

  /** Name, display name and colours (`#rrggbb`; null restores the default). */
  async updateMerchant(id: string, patch: MerchantPatchInput) {
    for (const field of ['primaryColor', 'accentColor'] as const) {
      const value = patch[field];
      if (value !== undefined && value !== null && !isHexColor(value)) throw invalidField(field, 'must be a colour #rrggbb');
    }
    let timezone: string | null | undefined = patch.timezone;
    if (typeof timezone === 'string') {
      timezone = canonicalTimeZone(timezone);
      if (!timezone) throw invalidField('timezone', 'must be an IANA time zone such as Pacific/Tahiti or Europe/Paris');
    }
    const set = {
      ...(timezone !== undefined ? { timezone } : {}),
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.displayName !== undefined ? { display_name: patch.displayName } : {}),
      ...(patch.primaryColor !== undefined ? { primary_color: patch.primaryColor?.toLowerCase() ?? null } : {}),
      ...(patch.accentColor !== undefined ? { accent_color: patch.accentColor?.toLowerCase() ?? null } : {}),
      ...(patch.legalName !== undefined ? { legal_name: patch.legalName } : {}),
      ...(patch.address !== undefined ? { address: patch.address ? JSON.stringify(patch.address) : null } : {}),
      ...(patch.registrationNumber !== undefined ? { registration_number: patch.registrationNumber } : {}),
      ...(patch.taxId !== undefined ? { tax_id: patch.taxId } : {}),
      ...(patch.invoiceFooter !== undefined ? { invoice_footer: blankToNull(patch.invoiceFooter) } : {}),
      ...(patch.latePaymentTerms !== undefined ? { late_payment_terms: blankToNull(patch.latePaymentTerms) } : {}),
      ...(patch.earlyPaymentDiscount !== undefined ? { early_payment_discount: blankToNull(patch.earlyPaymentDiscount) } : {}),
      ...(patch.platform !== undefined ? { platform: patch.platform ? 1 : 0 } : {}),
      ...(patch.agency !== undefined ? { agency: patch.agency ? 1 : 0 } : {}),
    };
    if (Object.keys(set).length > 0) {
      const res = await this.db.kysely.updateTable('merchants').set(set).where('id', '=', id).executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) throw notFound('merchant', id);
    }
    return this.getMerchant(id);
  }

  /**
   * Replaces the logo with `base64`'s picture once its bytes prove it a PNG, JPEG or WebP of a logo's size; a
   * refused file changes nothing (400 VALIDATION_ERROR on `image`, `details.reason`: type, size or dimensions).
   */
  async setLogo(id: string, base64: string) {
    if (!BASE64.test(base64) || base64.length % 4 !== 0) throw invalidField('image', 'must be the file in base64');
    const bytes = Buffer.from(base64, 'base64');
    const image = readLogo(bytes);
    if ('problem' in image) {
      const error = invalidField('image', LOGO_RULE);
      throw new AppError(error.code, error.message, { field: 'image', reason: image.problem, maxBytes: MAX_LOGO_BYTES }, error.fields);
    }
    const digest = sha256Hex(bytes);
    const now = this.now();
    await this.db.transaction(async (trx) => {
      const res = await trx.updateTable('merchants').set({ logo_digest: digest }).where('id', '=', id).executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) throw notFound('merchant', id);
      const row = { digest, content_type: image.type, width: image.width, height: image.height, image: bytes, created_at: now };
      await trx.insertInto('merchant_logos').values({ merchant_id: id, ...row })
        .onConflict((oc) => oc.column('merchant_id').doUpdateSet(row)).execute();
    });
    return this.getMerchant(id);
  }

  /** Back to the name's initial on the hosted pages. */
  async removeLogo(id: string) {
    await this.db.transaction(async (trx) => {
      const res = await trx.updateTable('merchants').set({ logo_digest: null }).where('id', '=', id).executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) throw notFound('merchant', id);
      await trx.deleteFrom('merchant_logos').where('merchant_id', '=', id).execute();
    });
    return this.getMerchant(id);
  }

  /** The logo's bytes while `digest` is the current one (an old URL is gone, not another picture). */
  async logo(merchantId: string, digest: string) {
    return this.db.kysely.selectFrom('merchant_logos').select(['content_type', 'image'])
      .where('merchant_id', '=', merchantId).where('digest', '=', digest).executeTakeFirst();
  }
}
