// Opening the database, migrating it, settling the admin token and seeding the demo merchant.
import { secretBoxFor } from '../shared/secret-box.js';
import { randomBytes } from 'node:crypto';
import type { Config } from '../config.js';
import { openDatabase, type Database } from '../db/database.js';
import { migrate } from '../db/migrate.js';
import { MerchantsService } from '../modules/merchants/merchants.service.js';
import { UsersService } from '../modules/users/users.service.js';
import { StoresService } from '../modules/merchants/stores.service.js';
import type { Clock } from '../shared/clock.js';
import { sha256Hex } from '../shared/hash.js';
import { base62 } from '../shared/ids.js';

export async function openMigrated(config: Config): Promise<Database> {
  const db = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, groupCommit: config.sqliteGroupCommit });
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

export interface AdminToken {
  hash: string;
  /** Set only when the token was generated now; shown once and never again. */
  generated?: string;
}

/** MOTU_ADMIN_TOKEN wins; otherwise the stored hash; otherwise a token is generated, its hash stored. */
export async function resolveAdminToken(config: Config, db: Database): Promise<AdminToken> {
  if (config.adminToken) return { hash: sha256Hex(config.adminToken) };
  const stored = await db.kysely.selectFrom('settings').select('value').where('name', '=', 'admin_token_hash').executeTakeFirst();
  if (stored) return { hash: stored.value };
  const token = `adm_${base62(randomBytes(24), 32)}`;
  const hash = sha256Hex(token);
  try {
    await db.kysely.insertInto('settings').values({ name: 'admin_token_hash', value: hash }).execute();
    return { hash, generated: token };
  } catch (err) {
    // Another process generated one first: use its.
    if (!db.isUniqueViolation(err)) throw err;
    const other = await db.kysely.selectFrom('settings').select('value').where('name', '=', 'admin_token_hash').executeTakeFirstOrThrow();
    return { hash: other.value };
  }
}

export interface DemoSeed {
  merchantId: string;
  testSecretKey: string;
  webhookSecret: string;
  storeId: string;
  storeCode: string;
  /** The demo owner's one-time back-office set-up link. */
  backOfficeSetupUrl: string;
}

/** On an empty database, a demo merchant with a store, so `curl` works right after `npm start`. */
export async function seedDemo(config: Config, db: Database, clock: Clock): Promise<DemoSeed | undefined> {
  if (!config.seedDemo) return undefined;
  const claimed = await db.kysely
    .insertInto('settings')
    .values({ name: 'demo_seeded', value: clock.now().toISOString() })
    .onConflict((oc) => oc.column('name').doNothing())
    .executeTakeFirst();
  if (Number(claimed.numInsertedOrUpdatedRows ?? 0n) === 0) return undefined;
  const any = await db.kysely.selectFrom('merchants').select('id').limit(1).executeTakeFirst();
  if (any) return undefined;
  const merchants = new MerchantsService(db, clock, secretBoxFor(config));
  const merchant = await merchants.createMerchant({ name: 'Demo Shop' });
  const store = await new StoresService(db, clock).create(merchant.id, { code: 'web', name: 'Demo Shop online', kind: 'online' });
  const owner = await new UsersService(db, clock, { publicUrl: config.publicUrl, box: secretBoxFor(config), mail: null })
    .create(merchant.id, { email: 'owner@demo-shop.example', role: 'owner' });
  return {
    backOfficeSetupUrl: owner.setupUrl!,
    merchantId: merchant.id,
    testSecretKey: merchant.testSecretKey,
    webhookSecret: merchant.testWebhookSecret,
    storeId: store.id,
    storeCode: store.code,
  };
}
