// The merchant's bank accounts (where payouts go), per mode: the first of a currency is its default, one default per
// currency at any time. They are the merchant's treasury, not a store's: a key bound to a store gets 403.
import { createHmac } from 'node:crypto';
import type { Database, Trx } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { paginate, type PageRequest } from '../../shared/pagination.js';
import type { SecretBox } from '../../shared/secret-box.js';
import type { Owner } from '../merchants/principal.js';
import { ownedBy } from '../merchants/scope.js';
import type { BankAccountRow } from './bank-accounts.table.js';
import { checkedIban } from './iban.js';

export interface BankAccountInput {
  iban: string;
  holderName: string;
  currency: 'EUR' | 'XPF';
  bic?: string;
}

export function bankAccountView(row: BankAccountRow) {
  return {
    id: row.id,
    country: row.country,
    last4: row.last4,
    currency: row.currency,
    holderName: row.holder_name,
    bic: row.bic,
    fingerprint: row.fingerprint,
    status: row.status,
    default: row.is_default === 1,
    createdAt: row.created_at,
  };
}

function merchantWide(owner: Owner): void {
  if (owner.storeId) throw new AppError('PERMISSION_DENIED', "Bank accounts are the merchant's, not a store's: use a key that is not bound to a store");
}

export class BankAccountsService {
  private readonly fingerprintKey: Buffer;

  constructor(private readonly db: Database, private readonly clock: Clock, private readonly box: SecretBox) {
    this.fingerprintKey = box.derivedKey('bank-account-fingerprint');
  }

  private live(trx: Trx | Database['kysely'], owner: Owner) {
    return trx.selectFrom('bank_accounts').selectAll().where(ownedBy(owner)).where('deleted_at', 'is', null);
  }

  private async find(owner: Owner, id: string): Promise<BankAccountRow> {
    const row = await this.live(this.db.kysely, owner).where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('bank account', id);
    return row;
  }

  async create(owner: Owner, input: BankAccountInput) {
    merchantWide(owner);
    const iban = checkedIban(input.iban);
    const id = await this.db.transaction((trx) => this.insert(trx, owner, { ...input, iban }));
    return bankAccountView(await this.find(owner, id));
  }

  /**
   * Writes the account on the caller's transaction (an approved onboarding gives its seller the IBAN of its case);
   * the IBAN is checked again. The first account of a currency is its default. Returns its id.
   */
  async insert(trx: Trx, owner: Owner, input: BankAccountInput): Promise<string> {
    const iban = checkedIban(input.iban);
    const id = newId('ba');
    const fingerprint = createHmac('sha256', this.fingerprintKey).update(`${owner.merchantId}:${owner.mode}:${iban}`).digest('base64url').slice(0, 16);
    // The first account of a currency is its default (read, under the currency's lock, in the insert's transaction).
    await this.lockMerchant(trx, owner);
    const current = await this.live(trx, owner).select('id').where('currency', '=', input.currency).where('is_default', '=', 1).executeTakeFirst();
    await trx.insertInto('bank_accounts').values({
      id, merchant_id: owner.merchantId, mode: owner.mode, currency: input.currency, country: iban.slice(0, 2), last4: iban.slice(-4),
      fingerprint, iban_sealed: this.box.seal(iban), holder_name: input.holderName, bic: input.bic?.toUpperCase() ?? null,
      status: 'new', is_default: current ? 0 : 1, created_at: this.clock.now().toISOString(), deleted_at: null,
    }).execute();
    return id;
  }

  async list(owner: Owner, page: PageRequest) {
    merchantWide(owner);
    const result = await paginate(this.live(this.db.kysely, owner), page, (id) => this.live(this.db.kysely, owner).where('id', '=', id).executeTakeFirst());
    return { data: result.data.map(bankAccountView), hasMore: result.hasMore };
  }

  async get(owner: Owner, id: string) {
    merchantWide(owner);
    return bankAccountView(await this.find(owner, id));
  }

  /** Makes the account the default of its currency; the previous default stops being one, in the same transaction. */
  async makeDefault(owner: Owner, id: string) {
    merchantWide(owner);
    const account = await this.find(owner, id);
    await this.db.transaction(async (trx) => {
      await this.lockMerchant(trx, owner);
      await trx.updateTable('bank_accounts').set({ is_default: 0 }).where(ownedBy(owner)).where('currency', '=', account.currency).where('id', '<>', id).execute();
      await trx.updateTable('bank_accounts').set({ is_default: 1 }).where('id', '=', id).where('deleted_at', 'is', null).execute();
    });
    return bankAccountView(await this.find(owner, id));
  }

  /**
   * Removes the account from every list (its row stays: payouts name it). When it was the default of its currency, the
   * newest other account of that currency becomes the default, so automatic payouts keep a destination.
   */
  async remove(owner: Owner, id: string) {
    merchantWide(owner);
    const account = await this.find(owner, id);
    await this.db.transaction(async (trx) => {
      await this.lockMerchant(trx, owner);
      await trx.updateTable('bank_accounts').set({ deleted_at: this.clock.now().toISOString(), is_default: 0 }).where('id', '=', id).execute();
      if (account.is_default !== 1) return;
      const next = await this.live(trx, owner).select('id').where('currency', '=', account.currency)
        .orderBy('created_at', 'desc').orderBy('id', 'desc').executeTakeFirst();
      if (next) await trx.updateTable('bank_accounts').set({ is_default: 1 }).where('id', '=', next.id).execute();
    });
    return { id, deleted: true };
  }

  /**
   * Locks the merchant's row, so that changes of a default run one at a time: each reads the default the one
   * before it left (two first accounts are not both the default) and none waits on rows another holds in another order
   * (concurrent PATCHes of {default: true} deadlocked on PostgreSQL, answering 500).
   */
  private async lockMerchant(trx: Trx, owner: Owner): Promise<void> {
    await this.db.lockForUpdate(trx.selectFrom('merchants').select('id').where('id', '=', owner.merchantId)).executeTakeFirst();
  }

  /** The default account of a currency, with its IBAN opened: for payouts and the operator's transfer file only. */
  async defaultWithIban(owner: Owner, currency: string): Promise<(BankAccountRow & { iban: string }) | undefined> {
    const row = await this.live(this.db.kysely, owner).where('currency', '=', currency).where('is_default', '=', 1).executeTakeFirst();
    return row ? { ...row, iban: this.box.open(row.iban_sealed) } : undefined;
  }

  /** One of the owner's accounts with its IBAN opened (a payout to a chosen account), or undefined. */
  async withIban(owner: Owner, id: string): Promise<(BankAccountRow & { iban: string }) | undefined> {
    const row = await this.live(this.db.kysely, owner).where('id', '=', id).executeTakeFirst();
    return row ? { ...row, iban: this.box.open(row.iban_sealed) } : undefined;
  }

  /** The IBAN of an account, deleted or not (the test bank's answer to a payout already on its way). */
  async ibanOf(id: string): Promise<string | undefined> {
    const row = await this.db.kysely.selectFrom('bank_accounts').select('iban_sealed').where('id', '=', id).executeTakeFirst();
    return row ? this.box.open(row.iban_sealed) : undefined;
  }
}
