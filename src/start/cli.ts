// The `motu` command line: serve, migrate, and one command per admin API call, printing JSON.
import { UserBody } from '../modules/users/users.admin.routes.js';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { TSchema } from 'typebox';
import { ConfigError, parseConfig, type Role } from '../config.js';
import { migrate } from '../db/migrate.js';
import { schemaValidationError } from '../http/errors.js';
import { bodyValidator } from '../http/validation.js';
import { buildServices } from '../compose.js';
import { KeyBody } from '../modules/merchants/api-keys.routes.js';
import { ContractBody, ContractPatch } from '../modules/merchants/contracts.routes.js';
import { AdminOpenBody, CloseBody } from '../modules/disputes/disputes.routes.js';
import { XPF_CSV_HEADER, xpfCsvValues } from '../modules/payouts/payouts.routes.js';
import { csvLine } from '../shared/csv.js';
import { MerchantBody, MerchantPatch } from '../modules/merchants/merchants.routes.js';
import { StoreBody, StorePatch } from '../modules/merchants/stores.routes.js';
import { AdjustmentBody } from '../modules/ledger/balance.routes.js';
import { verifyLedger } from '../modules/ledger/verify.js';
import { AppError } from '../shared/errors.js';
import { systemClock } from '../shared/clock.js';
import { openMigrated } from './bootstrap.js';
import { serve } from './server.js';
import { listen } from './listen.js';

const USAGE = `Usage: motu <command> [options]

  serve [--role api|worker|all]           run the service (default role: all)
  migrate                                  apply database migrations
  merchants create --name NAME             create a merchant (prints its keys and secrets once)
  merchants list | merchants get ID
  merchants update ID [--name NAME] [--display-name NAME|none] [--primary-color '#rrggbb'|none]
                   [--accent-color '#rrggbb'|none]   branding of the hosted pages and the SDK
                   [--timezone Pacific/Tahiti|none]   local time on receipts (none: MOTU_TIMEZONE)
                   [--legal-name NAME|none] [--registration-number N|none] [--tax-id N|none]
                   [--address '{"line1":…,"postalCode":…,"city":…,"country":"PF"}'|none]   the identity on invoices
  contracts create --merchant ID --statement-label L --commission-rate BP --fixed-fee CENTS
                   [--authorization-fee CENTS] [--tax-rate BP] [--dispute-fee CENTS] [--default] [--inactive]
  contracts update ID [--statement-label L] [--commission-rate BP] [--fixed-fee CENTS] [--dispute-fee CENTS]
                   [--authorization-fee CENTS] [--tax-rate BP] [--default] [--active true|false]
                   [--acquirer simulator|monext] [--monext-merchant-id ID] [--monext-access-key KEY]
                   [--monext-point-of-sale REF] [--monext-contract-number N] [--monext-environment homologation|production]
                                           live payments through Monext (docs/live.md); the access key is never printed
  stores create --merchant ID --code CODE --name NAME --kind online|physical [--contract ID] [--inactive]
  stores update ID [--name NAME] [--active true|false] [--contract ID]
  keys create --merchant ID --mode test|live [--permission write|read] [--store ID]
  keys revoke ID
  users create --merchant ID --email EMAIL --role owner|admin|developer|support|analyst
                                           a back-office user; prints its one-time set-up link (docs/back-office.md)
  users list --merchant ID
  adjustments create --merchant ID --mode test|live --currency EUR|XPF --amount SIGNED_MINOR_UNITS --reason TEXT
                                           correct a merchant's balance (an adjustment transaction, available at once)
  disputes open PAYMENT_ID --kind chargeback|inquiry --reason REASON [--amount MINOR_UNITS]
                                           open a dispute the bank reported (reasons: docs/money.md)
  disputes close ID --outcome won|lost     record the bank's decision on a dispute
  payouts transfers-xml --date YYYY-MM-DD  the day's live EUR payouts as a SEPA transfer file (pain.001.001.03)
  payouts transfers-csv --date YYYY-MM-DD  the day's live XPF payouts as CSV
  payouts import-camt FILE                 record the bank's answers from a camt.054 file
  payouts paid ID                          record that the bank paid a live payout
  payouts failed ID --reason no_account|account_closed|declined|could_not_process
                                           record that the bank refused it (its amount is credited back)
  ledger verify                            check every posting balances, every balance equals its transactions and
                                           every payment's transactions its captured and refunded amounts (exit 1 if not)
  listen --forward-to URL [--api-url URL] [--key sk_test_…]
                                           forward new test-mode events, signed, to a local URL
                                           (key and API URL default to MOTU_SECRET_KEY and MOTU_URL or MOTU_PUBLIC_URL)

Configuration comes from the environment (see README).`;

const OPTIONS = {
  role: { type: 'string' },
  email: { type: 'string' },
  name: { type: 'string' },
  'display-name': { type: 'string' },
  'primary-color': { type: 'string' },
  'accent-color': { type: 'string' },
  timezone: { type: 'string' },
  'legal-name': { type: 'string' },
  'registration-number': { type: 'string' },
  'tax-id': { type: 'string' },
  address: { type: 'string' },
  merchant: { type: 'string' },
  'statement-label': { type: 'string' },
  'commission-rate': { type: 'string' },
  'fixed-fee': { type: 'string' },
  'authorization-fee': { type: 'string' },
  'tax-rate': { type: 'string' },
  'dispute-fee': { type: 'string' },
  acquirer: { type: 'string' },
  'monext-merchant-id': { type: 'string' },
  'monext-access-key': { type: 'string' },
  'monext-point-of-sale': { type: 'string' },
  'monext-contract-number': { type: 'string' },
  'monext-environment': { type: 'string' },
  outcome: { type: 'string' },
  date: { type: 'string' },
  default: { type: 'boolean' },
  inactive: { type: 'boolean' },
  active: { type: 'string' },
  code: { type: 'string' },
  kind: { type: 'string' },
  contract: { type: 'string' },
  mode: { type: 'string' },
  permission: { type: 'string' },
  store: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  'forward-to': { type: 'string' },
  'api-url': { type: 'string' },
  key: { type: 'string' },
  currency: { type: 'string' },
  amount: { type: 'string' },
  reason: { type: 'string' },
} as const;

type Values = Record<string, string | boolean | undefined>;

function int(values: Values, flag: string): number | undefined {
  const raw = values[flag];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) throw new AppError('VALIDATION_ERROR', `--${flag} must be a whole number`, { field: flag });
  return Number(raw);
}

function signedInt(values: Values, flag: string): number | undefined {
  const raw = values[flag];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^-?\d{1,15}$/.test(raw)) throw new AppError('VALIDATION_ERROR', `--${flag} must be a whole number`, { field: flag });
  return Number(raw);
}

/** A JSON object flag (`none` clears it). */
function jsonFlag(values: Values, flag: string): unknown {
  const raw = values[flag];
  if (raw === undefined) return undefined;
  if (raw === 'none') return null;
  try {
    return JSON.parse(String(raw)) as unknown;
  } catch {
    throw new AppError('VALIDATION_ERROR', `--${flag} must be JSON`, { field: flag });
  }
}

function bool(values: Values, flag: string): boolean | undefined {
  const raw = values[flag];
  if (raw === undefined) return undefined;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new AppError('VALIDATION_ERROR', `--${flag} must be true or false`, { field: flag });
}

function str(values: Values, flag: string): string | undefined {
  const raw = values[flag];
  return typeof raw === 'string' ? raw : undefined;
}

/** Drops undefined entries, then validates with the same schema as the admin API route. */
function checked<T>(schema: TSchema, input: Record<string, unknown>): T {
  const body = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  const validate = bodyValidator(schema);
  if (!validate(body)) throw schemaValidationError(validate.errors ?? [], 'body');
  return body as T;
}

/** The --monext-… flags as the contract's `monext` patch; undefined when none is given. */
function monextFlags(v: Values): Record<string, string> | undefined {
  const flags = {
    merchantId: str(v, 'monext-merchant-id'), accessKey: str(v, 'monext-access-key'), pointOfSaleReference: str(v, 'monext-point-of-sale'),
    contractNumber: str(v, 'monext-contract-number'), environment: str(v, 'monext-environment'),
  };
  const given = Object.fromEntries(Object.entries(flags).filter(([, value]) => value !== undefined)) as Record<string, string>;
  return Object.keys(given).length > 0 ? given : undefined;
}

function need(value: string | undefined, flag: string): string {
  if (!value) throw new AppError('VALIDATION_ERROR', `--${flag} is required`, { field: flag });
  return value;
}

export async function main(argv: string[], print: (line: string) => void = console.log): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const [command, action, id] = positionals;
  if (values.help || !command) {
    print(USAGE);
    return command ? 0 : 1;
  }
  const config = parseConfig(process.env);

  if (command === 'listen') {
    const v = values as Values;
    await listen({
      apiUrl: (str(v, 'api-url') ?? process.env.MOTU_URL ?? config.publicUrl).replace(/\/+$/, ''),
      secretKey: need(str(v, 'key') ?? process.env.MOTU_SECRET_KEY, 'key'),
      forwardTo: need(str(v, 'forward-to'), 'forward-to'),
      print,
    });
    return 0;
  }

  if (command === 'serve') {
    const role = (values.role ?? 'all') as Role;
    if (!['api', 'worker', 'all'].includes(role)) throw new ConfigError('--role', `must be api, worker or all, got "${role}"`);
    if (role !== 'all' && !config.databaseUrl) {
      // The embedded database belongs to one process (its group commit and worker wake-ups are in-process).
      throw new ConfigError('--role', `${role} needs DATABASE_URL (PostgreSQL); with the embedded SQLite database run one process with --role all`);
    }
    await serve(config, role, print);
    return -1;
  }

  const db = await openMigrated(config);
  try {
    if (command === 'ledger' && action === 'verify') {
      const result = await verifyLedger(db);
      print(JSON.stringify(result, null, 2));
      return result.ok ? 0 : 1;
    }
    const services = buildServices(config, db, systemClock);
    const { merchants } = services;
    const v = values as Values;
    // The operator's bank files, printed as they are (redirect them to a file).
    if (command === 'payouts' && (action === 'transfers-xml' || action === 'transfers-csv')) {
      try {
        const date = need(str(v, 'date'), 'date');
        if (action === 'transfers-xml') {
          print((await services.bankFiles.sepaFile(date)).xml.trimEnd());
        } else {
          const list = await services.bankFiles.xpfList(date);
          print(csvLine(XPF_CSV_HEADER).trimEnd());
          for (const r of list.rows) print(csvLine(xpfCsvValues(r)).trimEnd());
        }
        return 0;
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        print(JSON.stringify(err.toBody(), null, 2));
        return 1;
      }
    }
    const run = async (): Promise<unknown> => {
      switch (`${command} ${action ?? ''}`.trim()) {
        case 'migrate':
          return { migrated: await migrate(db) };
        case 'merchants create':
          return merchants.createMerchant(checked(MerchantBody, { name: str(v, 'name') }));
        case 'merchants list':
          return { data: await merchants.listMerchants() };
        case 'merchants get':
          return merchants.getMerchant(need(id, 'id'));
        case 'merchants update': {
          // `none` clears a value (back to the default look or the merchant's name).
          const clearable = (flag: string) => {
            const value = str(v, flag);
            return value === 'none' ? null : value;
          };
          return merchants.updateMerchant(need(id, 'id'), checked(MerchantPatch, {
            name: str(v, 'name'), displayName: clearable('display-name'), primaryColor: clearable('primary-color'), accentColor: clearable('accent-color'),
            timezone: clearable('timezone'), legalName: clearable('legal-name'), registrationNumber: clearable('registration-number'),
            taxId: clearable('tax-id'), address: jsonFlag(v, 'address'),
          }));
        }
        case 'contracts create':
          return services.contracts.create(
            need(str(v, 'merchant'), 'merchant'),
            checked(ContractBody, {
              statementLabel: str(v, 'statement-label'),
              commissionRate: int(v, 'commission-rate'),
              fixedFee: int(v, 'fixed-fee'),
              authorizationFee: int(v, 'authorization-fee'),
              taxRate: int(v, 'tax-rate'),
              disputeFee: int(v, 'dispute-fee'),
              isDefault: v.default === true ? true : undefined,
              active: v.inactive === true ? false : undefined,
            }),
          );
        case 'contracts update':
          return services.contracts.update(
            need(id, 'id'),
            checked(ContractPatch, {
              statementLabel: str(v, 'statement-label'),
              commissionRate: int(v, 'commission-rate'),
              fixedFee: int(v, 'fixed-fee'),
              authorizationFee: int(v, 'authorization-fee'),
              taxRate: int(v, 'tax-rate'),
              disputeFee: int(v, 'dispute-fee'),
              isDefault: v.default === true ? true : undefined,
              active: bool(v, 'active'),
              acquirer: str(v, 'acquirer'),
              monext: monextFlags(v),
            }),
          );
        case 'stores create':
          return services.stores.create(
            need(str(v, 'merchant'), 'merchant'),
            checked(StoreBody, {
              code: str(v, 'code'),
              name: str(v, 'name'),
              kind: str(v, 'kind'),
              contractId: str(v, 'contract'),
              active: v.inactive === true ? false : undefined,
            }),
          );
        case 'stores update':
          return services.stores.update(
            need(id, 'id'),
            checked(StorePatch, { name: str(v, 'name'), active: bool(v, 'active'), contractId: str(v, 'contract') }),
          );
        case 'keys create':
          return services.apiKeys.create(
            need(str(v, 'merchant'), 'merchant'),
            checked(KeyBody, { mode: str(v, 'mode'), permission: str(v, 'permission'), storeId: str(v, 'store') }),
          );
        case 'keys revoke':
          return services.apiKeys.revoke(need(id, 'id'));
        case 'payouts import-camt': {
          const file = need(id, 'file');
          let xml: string;
          try {
            xml = readFileSync(file, 'utf8');
          } catch {
            throw new AppError('VALIDATION_ERROR', `Cannot read ${file}`, { field: 'file' });
          }
          return services.bankFiles.importCamt054(xml);
        }
        case 'payouts paid':
          return services.payouts.recordAnswer(need(id, 'id'), { paid: true });
        case 'payouts failed': {
          const reason = need(str(v, 'reason'), 'reason');
          if (!['no_account', 'account_closed', 'declined', 'could_not_process'].includes(reason)) {
            throw new AppError('VALIDATION_ERROR', '--reason must be no_account, account_closed, declined or could_not_process', { field: 'reason' });
          }
          return services.payouts.recordAnswer(need(id, 'id'), { paid: false, reason });
        }
        case 'users create': {
          const created = await services.users.create(need(str(v, 'merchant'), 'merchant'), checked(UserBody, { email: str(v, 'email'), role: str(v, 'role') }));
          return { ...created.user, setupUrl: created.setupUrl };
        }
        case 'users list':
          return { data: await services.users.list(need(str(v, 'merchant'), 'merchant')) };
        case 'disputes open':
          return services.disputes.openByOperator(need(id, 'payment id'), checked(AdminOpenBody, {
            kind: str(v, 'kind'), reason: str(v, 'reason'), amount: int(v, 'amount'),
          }));
        case 'disputes close':
          return services.disputes.closeByOperator(need(id, 'id'), checked<{ outcome: 'won' | 'lost' }>(CloseBody, { outcome: str(v, 'outcome') }).outcome);
        case 'adjustments create': {
          return services.balance.adjust(need(str(v, 'merchant'), 'merchant'), checked(AdjustmentBody, {
            mode: str(v, 'mode'), currency: str(v, 'currency'), amount: signedInt(v, 'amount'), reason: str(v, 'reason'),
          }));
        }
        default:
          throw new AppError('VALIDATION_ERROR', `Unknown command "${positionals.join(' ')}"; run motu --help`, { field: 'command' });
      }
    };
    try {
      print(JSON.stringify(await run(), null, 2));
      return 0;
    } catch (err) {
      if (err instanceof AppError) {
        print(JSON.stringify(err.toBody(), null, 2));
        return 1;
      }

      throw err;
    }
  } finally {
    await db.close();
  }
}
