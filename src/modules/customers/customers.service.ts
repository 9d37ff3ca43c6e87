// Customers: created by the API or by a payment (saveCustomer); email and externalId unique per merchant and mode.
import { sql } from 'kysely';
import type { Database, Trx } from '../../db/database.js';
import type { Owner } from '../merchants/principal.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import { idForKeyUse, idFromKey, keyUseParts, newId } from '../../shared/ids.js';
import { paginate, type PageRequest } from '../../shared/pagination.js';
import type { CustomerRow } from './customers.table.js';
import { recordEvent } from '../../events/outbox.js';
import { payloads } from '../../events/payloads.js';
import { ownedBy } from '../merchants/scope.js';
import { takeClockPlace } from '../test-clocks/limits.js';

export interface CustomerInput {
  email?: string | null;
  externalId?: string | null;
  name?: string | null;
  phone?: string | null;
  address?: Record<string, unknown> | null;
  metadata?: Record<string, unknown> | null;
  /** At creation only, test mode: the customer lives on this test clock. */
  testClockId?: string;
}


export function customerView(row: CustomerRow) {
  return {
    id: row.id,
    email: row.email,
    externalId: row.external_id,
    name: row.name,
    phone: row.phone,
    address: row.address ? (JSON.parse(row.address) as Record<string, unknown>) : null,
    metadata: row.metadata ? (JSON.parse(row.metadata) as Record<string, unknown>) : null,
    testClockId: row.test_clock_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type CustomerView = ReturnType<typeof customerView>;

const FIELDS = ['email', 'externalId', 'name', 'phone', 'address', 'metadata'] as const;

function json(value: Record<string, unknown> | null | undefined): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

export class CustomersService {
  constructor(private readonly db: Database, private readonly clock: Clock) {}

  /** Inserts a customer on the caller's transaction (used by the API and by payments with saveCustomer). */
  async insert(trx: Trx, owner: Owner, input: CustomerInput, id: string = newId('cus')): Promise<CustomerRow> {
    if (input.testClockId !== undefined) await takeClockPlace(this.db, trx, owner, input.testClockId, 'customer');
    const now = this.clock.now().toISOString();
    const row: CustomerRow = {
      id,
      merchant_id: owner.merchantId,
      mode: owner.mode,
      email: input.email ?? null,
      email_key: input.email ? input.email.toLowerCase() : null,
      external_id: input.externalId ?? null,
      name: input.name ?? null,
      phone: input.phone ?? null,
      address: json(input.address),
      metadata: json(input.metadata),
      test_clock_id: input.testClockId ?? null,
      created_at: now,
      updated_at: now,
    };
    await trx.insertInto('customers').values(row).execute();
    await recordEvent(trx, { merchantId: owner.merchantId, mode: owner.mode, at: new Date(now), ...payloads.customerCreated(customerView(row)) });
    return row;
  }

  /**
   * With `idempotencyKey` the id is derived from it (customerIdFor): a retry that runs again after the first request
   * was killed mid-way (its in-flight key abandoned) answers the customer that run created, not a second one (and
   * not a 409 on its own email). Another key with the same email or externalId is still a 409.
   */
  async create(owner: Owner, input: CustomerInput, idempotencyKey?: string) {
    let id: string | undefined;
    if (idempotencyKey !== undefined) {
      const keyed = await idForKeyUse((use) => customerIdFor(owner, idempotencyKey, use), (cid) => this.find(this.db.kysely, owner, cid), this.clock.now());
      if (keyed.earlier) return customerView(keyed.earlier);
      id = keyed.id;
    }
    try {
      const row = await this.db.transaction((trx) => this.insert(trx, owner, input, id));
      return customerView(row);
    } catch (err) {
      // The first run committed meanwhile (it outlived its abandoned key): its customer is the answer.
      const earlier = id && this.db.isUniqueViolation(err) ? await this.find(this.db.kysely, owner, id) : undefined;
      if (earlier) return customerView(earlier);
      throw this.duplicate(err, input);
    }
  }

  async get(owner: Owner, id: string) {
    const row = await this.find(this.db.kysely, owner, id);
    if (!row) throw notFound('customer', id);
    return customerView(row);
  }

  async find(db: Trx | Database['kysely'], owner: Owner, id: string): Promise<CustomerRow | undefined> {
    return db
      .selectFrom('customers')
      .selectAll()
      .where('id', '=', id)
      .where(ownedBy(owner))
      .executeTakeFirst();
  }

  /** Triple identification: by id, by email or by externalId, within the merchant and mode. */
  async identify(
    db: Trx | Database['kysely'],
    owner: Owner,
    by: { customerId?: string; email?: string; externalId?: string },
  ): Promise<CustomerRow | undefined> {
    let q = db.selectFrom('customers').selectAll().where(ownedBy(owner));
    if (by.customerId) q = q.where('id', '=', by.customerId);
    else if (by.email) q = q.where('email_key', '=', by.email.toLowerCase());
    else if (by.externalId) q = q.where('external_id', '=', by.externalId);
    else return undefined;
    return q.executeTakeFirst();
  }

  async update(owner: Owner, id: string, patch: CustomerInput) {
    try {
      return await this.db.transaction(async (trx) => {
        const current = await this.find(trx, owner, id);
        if (!current) throw notFound('customer', id);
        const before = customerView(current);
        const updatedFields = FIELDS.filter(
          (f) => patch[f] !== undefined && JSON.stringify(patch[f]) !== JSON.stringify(before[f]),
        );
        if (updatedFields.length === 0) return { customer: before, updatedFields };
        const set: Partial<CustomerRow> = { updated_at: this.clock.now().toISOString() };
        if (updatedFields.includes('email')) {
          set.email = patch.email ?? null;
          set.email_key = patch.email ? patch.email.toLowerCase() : null;
        }
        if (updatedFields.includes('externalId')) set.external_id = patch.externalId ?? null;
        if (updatedFields.includes('name')) set.name = patch.name ?? null;
        if (updatedFields.includes('phone')) set.phone = patch.phone ?? null;
        if (updatedFields.includes('address')) set.address = json(patch.address);
        if (updatedFields.includes('metadata')) set.metadata = json(patch.metadata);
        await trx.updateTable('customers').set(set).where('id', '=', id).execute();
        const row = (await this.find(trx, owner, id))!;
        const customer = customerView(row);
        await recordEvent(trx, {
          merchantId: owner.merchantId,
          mode: owner.mode,
          at: new Date(customer.updatedAt),
          ...payloads.customerUpdated({ ...customer, updatedFields: [...updatedFields] }),
        });
        return { customer, updatedFields: [...updatedFields] };
      });
    } catch (err) {
      throw this.duplicate(err, patch);
    }
  }

  async list(owner: Owner, filter: { email?: string; externalId?: string; q?: string } & PageRequest) {
    let q = this.db.kysely
      .selectFrom('customers')
      .selectAll()
      .where(ownedBy(owner));
    if (filter.email) q = q.where('email_key', '=', filter.email.toLowerCase());
    if (filter.externalId) q = q.where('external_id', '=', filter.externalId);
    const search = filter.q?.trim().toLowerCase();
    if (search) {
      // Anywhere in the name, the email or the external id, whatever the case (lower() on both sides: every letter in
      // PostgreSQL, ASCII letters in SQLite); `%` and `_` typed are themselves, not wildcards. The id matches whole.
      const pattern = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const contains = (column: string) => sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
      q = q.where((eb) => eb.or([eb('id', '=', filter.q!.trim()), contains('name'), contains('email_key'), contains('external_id')]));
    }
    const page = await paginate(q, filter, (id) => this.find(this.db.kysely, owner, id));
    return { data: page.data.map(customerView), hasMore: page.hasMore };
  }

  private duplicate(err: unknown, input: CustomerInput): unknown {
    if (!this.db.isUniqueViolation(err)) return err;
    const message = String((err as Error).message ?? '');
    const field = /external_id/.test(message) ? 'externalId' : /email/.test(message) ? 'email' : input.email ? 'email' : 'externalId';
    return new AppError('ALREADY_EXISTS', `A customer with this ${field} already exists`, { field });
  }
}

/** The id of the customer created under the `use`-th use of `idempotencyKey` (idFromKey, idForKeyUse). */
export function customerIdFor(owner: Owner, idempotencyKey: string, use = 0): string {
  return idFromKey('cus', keyUseParts(['cus', owner.merchantId, owner.mode, idempotencyKey], use));
}
