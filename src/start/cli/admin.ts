// The operator's commands: each opens the database (DATABASE_URL, else the SQLite file in MOTU_DATA_DIR), migrates it,
// calls the same service as the admin API route, prints JSON and closes. Loaded only when one of them runs, so that
// `motu --help` does not load the database drivers and the services.
import type { Static } from 'typebox';
import { existsSync, readFileSync } from 'node:fs';
import nodePath from 'node:path';
import { parseConfig, type Config } from '../../config.js';
import { buildServices, type Services } from '../../compose.js';
import { openDatabase, type Database } from '../../db/database.js';
import { SQLITE_FILE } from '../../db/sqlite/sqlite.js';
import { migrate } from '../../db/migrate.js';
import { AdminOpenBody, CloseBody } from '../../modules/disputes/disputes.routes.js';
import { AdjustmentBody } from '../../modules/ledger/balance.routes.js';
import { verifyLedger } from '../../modules/ledger/verify.js';
import { KeyBody } from '../../modules/merchants/api-keys.routes.js';
import { ContractBody, ContractPatch } from '../../modules/merchants/contracts.routes.js';
import { MerchantBody, MerchantPatch } from '../../modules/merchants/merchants.routes.js';
import { DecisionBody } from '../../modules/platforms/platforms.routes.js';
import { StoreBody, StorePatch } from '../../modules/merchants/stores.routes.js';
import { XPF_CSV_HEADER, xpfCsvValues } from '../../modules/payouts/payouts.routes.js';
import { UserBody } from '../../modules/users/users.admin.routes.js';
import { systemClock } from '../../shared/clock.js';
import { csvLine } from '../../shared/csv.js';
import { AppError, invalidField } from '../../shared/errors.js';
import { openMigrated } from '../bootstrap.js';
import { CliError, databaseError, EXIT } from './errors.js';
import { bool, checked, int, jsonFlag, signedInt, type Flags } from './values.js';

export interface AdminContext {
  config: Config;
  db: Database;
  services: Services;
  print: (line: string) => void;
}

/** What a command answers: JSON to print (exit 0), or an exit code when it printed by itself. */
export type Answer = { json: unknown; exitCode?: number } | { exitCode: number };

type Handler = (ctx: AdminContext, args: string[], flags: Flags) => Promise<Answer>;

const json = (value: unknown): Answer => ({ json: value });

/** The --monext-… flags as the contract's `monext` patch; undefined when none is given. */
function monextFlags(f: Flags): Record<string, string> | undefined {
  const given = Object.fromEntries(Object.entries({
    merchantId: f.monextMerchantId, accessKey: f.monextAccessKey, pointOfSaleReference: f.monextPointOfSale,
    contractNumber: f.monextContractNumber, environment: f.monextEnvironment,
  }).filter(([, value]) => value !== undefined)) as Record<string, string>;
  return Object.keys(given).length > 0 ? given : undefined;
}

/** A string flag; `none` clears the value (null). */
function clearable(value: unknown): string | null | undefined {
  if (value === undefined) return undefined;
  return value === 'none' ? null : String(value);
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The merchant must exist: listing another's keys or events for a typo would answer an empty list. */
async function merchantOwner(ctx: AdminContext, merchantId: string, mode: unknown) {
  await ctx.services.merchants.getMerchant(merchantId);
  if (mode !== undefined && mode !== 'test' && mode !== 'live') throw invalidField('--mode', 'must be test or live');
  return { merchantId, mode: (mode ?? 'test') as 'test' | 'live' };
}

const HANDLERS: Record<string, Handler> = {
  'merchants create': async ({ services }, _, f) => json(await services.merchants.createMerchant(checked(MerchantBody, { name: f.name }))),
  'merchants list': async ({ services }) => json({ data: await services.merchants.allMerchants() }),
  'merchants get': async ({ services }, [id]) => json(await services.merchants.getMerchant(id!)),
  'merchants update': async ({ services }, [id], f) => json(await services.merchants.updateMerchant(id!, checked(MerchantPatch, {
    name: str(f.name), displayName: clearable(f.displayName), primaryColor: clearable(f.primaryColor), accentColor: clearable(f.accentColor),
    timezone: clearable(f.timezone), legalName: clearable(f.legalName), registrationNumber: clearable(f.registrationNumber),
    taxId: clearable(f.taxId), address: jsonFlag(f.address, 'address'), invoiceFooter: clearable(f.invoiceFooter),
    latePaymentTerms: clearable(f.latePaymentTerms), earlyPaymentDiscount: clearable(f.earlyPaymentDiscount),
    platform: bool(f.platform, 'platform'), agency: bool(f.agency, 'agency'),
  }))),

  'merchants logo': async ({ services }, [id, file]) => json(file === 'none'
    ? await services.merchants.removeLogo(id!)
    : await services.merchants.setLogo(id!, readFileSync(file!).toString('base64'))),

  'contracts create': async ({ services }, _, f) => json(await services.contracts.create(String(f.merchant), checked(ContractBody, {
    statementLabel: str(f.statementLabel),
    commissionRate: int(f.commissionRate, 'commission-rate'),
    fixedFee: int(f.fixedFee, 'fixed-fee'),
    authorizationFee: int(f.authorizationFee, 'authorization-fee'),
    taxRate: int(f.taxRate, 'tax-rate'),
    disputeFee: int(f.disputeFee, 'dispute-fee'),
    isDefault: f.default === true ? true : undefined,
    active: f.inactive === true ? false : undefined,
  }))),
  'contracts update': async ({ services }, [id], f) => json(await services.contracts.update(id!, checked(ContractPatch, {
    statementLabel: str(f.statementLabel),
    commissionRate: int(f.commissionRate, 'commission-rate'),
    fixedFee: int(f.fixedFee, 'fixed-fee'),
    authorizationFee: int(f.authorizationFee, 'authorization-fee'),
    taxRate: int(f.taxRate, 'tax-rate'),
    disputeFee: int(f.disputeFee, 'dispute-fee'),
    isDefault: f.default === true ? true : undefined,
    active: bool(f.active, 'active'),
    acquirer: str(f.acquirer),
    monext: monextFlags(f),
  }))),

  'stores create': async ({ services }, _, f) => json(await services.stores.create(String(f.merchant), checked(StoreBody, {
    code: str(f.code), name: str(f.name), kind: str(f.kind), contractId: str(f.contract), active: f.inactive === true ? false : undefined,
  }))),
  'stores update': async ({ services }, [id], f) => json(await services.stores.update(id!, checked(StorePatch, {
    name: str(f.name), active: bool(f.active, 'active'), contractId: str(f.contract),
  }))),

  'keys create': async ({ services }, _, f) => json(await services.apiKeys.create(String(f.merchant), checked(KeyBody, {
    mode: str(f.mode), permission: str(f.permission), storeId: str(f.store),
  }))),
  'keys list': async (ctx, _, f) => {
    // Both modes unless one is asked for; a key is shown by its id, mode and last four characters, never its secret.
    const merchantId = String(f.merchant);
    await ctx.services.merchants.getMerchant(merchantId);
    const modes = f.mode === undefined ? (['test', 'live'] as const) : [(await merchantOwner(ctx, merchantId, f.mode)).mode];
    const data = (await Promise.all(modes.map((mode) => ctx.services.apiKeys.list({ merchantId, mode })))).flat()
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
    return json({ data });
  },
  'keys revoke': async ({ services }, [id]) => json(await services.apiKeys.revoke(id!)),

  'users create': async ({ services }, _, f) => {
    const created = await services.users.create(String(f.merchant), checked(UserBody, { email: str(f.email), role: str(f.role) }));
    return json({ ...created.user, setupUrl: created.setupUrl });
  },
  'users list': async ({ services }, _, f) => json({ data: await services.users.list(String(f.merchant)) }),

  'adjustments create': async ({ services }, _, f) => json(await services.balance.adjust(String(f.merchant), checked(AdjustmentBody, {
    mode: str(f.mode), currency: str(f.currency), amount: signedInt(f.amount, 'amount'), reason: str(f.reason),
  }))),

  'disputes open': async ({ services }, [paymentId], f) => json(await services.disputes.openByOperator(paymentId!, checked(AdminOpenBody, {
    kind: str(f.kind), reason: str(f.reason), amount: int(f.amount, 'amount'),
  }))),
  'onboarding-cases list': async ({ services }) => json(await services.onboarding.casesInReview({ limit: 100 })),
  'onboarding-cases decide': async ({ services }, [id], f) => json(await services.onboarding.decide(id!, checked<Static<typeof DecisionBody>>(DecisionBody, {
    enrollmentStatus: str(f.status), reasons: Array.isArray(f.reason) ? f.reason.map(String) : undefined,
  }))),

  'disputes close': async ({ services }, [id], f) =>
    json(await services.disputes.closeByOperator(id!, checked<{ outcome: 'won' | 'lost' }>(CloseBody, { outcome: str(f.outcome) }).outcome)),

  // The operator's bank files, printed as they are (redirect them to a file); an error is JSON as everywhere.
  'payouts transfers-xml': async ({ services, print }, _, f) => {
    print((await services.bankFiles.sepaFile(String(f.date))).xml.trimEnd());
    return { exitCode: EXIT.ok };
  },
  'payouts transfers-csv': async ({ services, print }, _, f) => {
    const list = await services.bankFiles.xpfList(String(f.date));
    print(csvLine(XPF_CSV_HEADER).trimEnd());
    for (const r of list.rows) print(csvLine(xpfCsvValues(r)).trimEnd());
    return { exitCode: EXIT.ok };
  },
  'payouts import-camt': async ({ services }, [file]) => {
    let xml: string;
    try {
      xml = readFileSync(file!, 'utf8');
    } catch {
      throw invalidField('FILE', `cannot read ${file}`);
    }
    return json(await services.bankFiles.importCamt054(xml));
  },
  'payouts paid': async ({ services }, [id]) => json(await services.payouts.recordAnswer(id!, { paid: true })),
  'payouts failed': async ({ services }, [id], f) => {
    const reason = String(f.reason);
    if (!['no_account', 'account_closed', 'declined', 'could_not_process'].includes(reason)) {
      throw invalidField('--reason', 'must be no_account, account_closed, declined or could_not_process');
    }
    return json(await services.payouts.recordAnswer(id!, { paid: false, reason: reason as 'declined' }));
  },

  'ledger verify': async ({ db }) => {
    const result = await verifyLedger(db);
    return { json: result, exitCode: result.ok ? EXIT.ok : EXIT.failed };
  },

  'payments get': async ({ services }, [id]) => json(await services.payments.getByOperator(id!)),

  'events list': async (ctx, _, f) => {
    const owner = await merchantOwner(ctx, String(f.merchant), f.mode);
    return json(await ctx.services.events.list(owner, {
      type: str(f.type), limit: f.limit === undefined ? undefined : limitOf(f.limit), startingAfter: str(f.startingAfter), paymentId: str(f.payment),
    }));
  },
  'events resend': async ({ services }, [id], f) => {
    try {
      return json(await services.events.resendByOperator(id!, { endpointId: str(f.endpoint) }));
    } catch (err) {
      // Resending goes to the targets the event had; one that had none needs an endpoint named.
      if (err instanceof AppError && err.code === 'BUSINESS_RULE_VIOLATION') {
        throw new CliError(err.code, err.message, 'The event was never sent anywhere: register an endpoint (POST /api/v1/webhook-endpoints, or the back-office\'s '
          + 'Developers page), then run `motu events resend ID --endpoint we_…`.', EXIT.failed, err.details);
      }
      throw err;
    }
  },
};

function limitOf(raw: unknown): number {
  const n = int(raw, 'limit')!;
  if (n < 1 || n > 100) throw invalidField('--limit', 'must be between 1 and 100');
  return n;
}

export const ADMIN_COMMANDS = Object.keys(HANDLERS);

/** Opens the database, runs one command, closes. `path` is the command without `motu` (`users create`). */
export async function runAdmin(path: string, args: string[], flags: Flags, print: (line: string) => void): Promise<number> {
  const config = parseConfig(process.env);
  if (path === 'migrate') {
    const db = await open(config, false);
    try {
      const applied = await migrate(db).catch((err: unknown) => {
        throw databaseError(err, config.databaseUrl) ?? err;
      });
      print(JSON.stringify({ migrated: applied }, null, 2));
      return EXIT.ok;
    } finally {
      await db.close();
    }
  }
  const handler = HANDLERS[path];
  if (!handler) throw new Error(`no handler for ${path}`);
  requireExistingSqlite(config);
  const db = await open(config, true);
  try {
    const answer = await handler({ config, db, services: buildServices(config, db, systemClock), print }, args, flags);
    if ('json' in answer) print(JSON.stringify(answer.json, null, 2));
    return answer.exitCode ?? EXIT.ok;
  } finally {
    await db.close();
  }
}

/**
 * Only `serve` and `migrate` create the SQLite database. An operator command run from another folder, or without the
 * server's MOTU_DATA_DIR, would otherwise create an empty one there and answer as if the merchants had been lost.
 */
function requireExistingSqlite(config: Config): void {
  if (config.databaseUrl) return;
  const file = nodePath.resolve(config.dataDir, SQLITE_FILE);
  if (existsSync(file)) return;
  const given = process.env.MOTU_DATA_DIR?.trim() ? `MOTU_DATA_DIR (${config.dataDir})` : `./data (MOTU_DATA_DIR is not set)`;
  throw new CliError('DATABASE_NOT_FOUND', `No Motu database in ${given}: ${file} does not exist`,
    'Run the command with the server\'s environment: its MOTU_DATA_DIR (or DATABASE_URL for PostgreSQL), or from the folder `motu serve` runs in. '
    + '`motu migrate` creates a new, empty database there if that is what you want.');
}

/** The database, migrated unless `migrate` runs itself; a database that cannot be opened is told with its hint. */
async function open(config: Config, migrated: boolean): Promise<Database> {
  let db: Database | undefined;
  try {
    if (migrated) return await openMigrated(config);
    db = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, groupCommit: config.sqliteGroupCommit });
    return db;
  } catch (err) {
    throw databaseError(err, config.databaseUrl) ?? err;
  }
}
