// The `motu` command tree (commander): every command, its arguments, options and help. Only commander and this file's
// light neighbours are loaded here; each action imports what it needs (the database and the services, the server,
// the HTTP client) when it runs, so `motu --help` and `motu --version` start in a blink.
import { readFileSync } from 'node:fs';
import { Argument, Command, Option } from 'commander';
import { CliError, EXIT, usageError } from './errors.js';
import { DEFAULT_NOTIFICATION_URL, TRIGGERS, triggerHelp } from './trigger.js';

export interface RunContext {
  print: (line: string) => void;
  /** The exit code the action chose; -1 while `serve` runs (it exits on SIGTERM/SIGINT by itself). */
  code: number;
  /** The command being run, without `motu` (`users create`), for the hints of its errors. */
  command?: string;
}

function packageVersion(): string {
  // The same relative path from src/start/cli and from dist/start/cli.
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** `users create` for the command `motu users create`. */
export function pathOf(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** The action of an operator command: open the database, run, print JSON (src/start/cli/admin.ts). */
function adminAction(ctx: RunContext) {
  return async (...args: unknown[]) => {
    const command = args.at(-1) as Command;
    const { runAdmin } = await import('./admin.js');
    ctx.code = await runAdmin(pathOf(command), command.processedArgs as string[], command.opts(), ctx.print);
  };
}

const EXIT_CODES = `Output and exit codes:
  Every command prints JSON on stdout; a failure is {"code", "message", "fields"?, "hint"} (the bank files of
  \`payouts transfers-xml|transfers-csv\` are printed as they are).
  0  done
  1  the operation failed or was refused (invalid value, unknown id, configuration, unreachable database or server)
  2  the command line is wrong (unknown command or option, missing argument or option)`;

const ENVIRONMENT = `Operator commands open the database the server uses: DATABASE_URL (PostgreSQL), else the SQLite file in
MOTU_DATA_DIR (default ./data); run them with the server's environment. They never create a database: only serve
and migrate do. \`listen\` and \`trigger\` call a running server over HTTP with a test secret key (--key or
MOTU_SECRET_KEY; --api-url or MOTU_URL). docs/cli.md tells more.`;

/** Levenshtein distance, for the did-you-mean of `motu trigger`'s event names. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

export function buildProgram(ctx: RunContext): Command {
  const program = new Command('motu');
  program
    .description('Motu, the self-hostable card payment and wallet service: run it, operate it, develop against it.')
    .version(packageVersion(), '-V, --version', 'print the version of motu')
    .helpOption('-h, --help', 'show the help of a command')
    .helpCommand('help [command]', 'show the help of a command')
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (text) => ctx.print(text.replace(/\n$/, '')),
      writeErr: (text) => process.stderr.write(text),
      // Parse errors are printed by main() as JSON, with the suggestion as the hint.
      outputError: () => {},
    })
    .exitOverride()
    .hook('preAction', (_, action) => {
      ctx.command = pathOf(action);
    })
    .addHelpText('after', `\n${EXIT_CODES}\n\n${ENVIRONMENT}`);

  program.commandsGroup('Run the service:');
  program.command('serve')
    .description('run the service: HTTP API, hosted pages, back-office, webhook delivery and scheduler')
    .option('--role <role>', 'api (HTTP only), worker (deliveries and scheduled jobs) or all; several processes need DATABASE_URL', 'all')
    .action(async (options: { role: string }) => {
      const role = options.role;
      if (!['api', 'worker', 'all'].includes(role)) {
        throw new CliError('VALIDATION_ERROR', `--role must be api, worker or all, got "${role}"`, 'Run `motu serve --role all` for one process doing everything.');
      }
      const { parseConfig } = await import('../../config.js');
      const config = parseConfig(process.env);
      if (role !== 'all' && !config.databaseUrl) {
        // The embedded database belongs to one process (its group commit and worker wake-ups are in-process).
        throw new CliError('CONFIG_ERROR', `--role ${role} needs DATABASE_URL (PostgreSQL)`,
          'With the embedded SQLite database run one process with --role all; set DATABASE_URL to split the roles across processes.');
      }
      const [{ serve }, { systemCode }] = await Promise.all([import('../server.js'), import('./errors.js')]);
      try {
        await serve(config, role as 'api' | 'worker' | 'all', ctx.print);
      } catch (err) {
        if (systemCode(err) === 'EADDRINUSE' || systemCode(err) === 'EACCES') {
          throw new CliError('PORT_UNAVAILABLE', `Cannot listen on ${config.host}:${config.port} (${systemCode(err)})`,
            'Another process holds the port (a `motu serve` still shutting down?): stop it, or choose another with PORT (and HOST).');
        }
        throw err;
      }
      ctx.code = -1;
    });
  program.command('migrate')
    .description('apply the database migrations (serve also applies them at start)')
    .action(adminAction(ctx));

  program.commandsGroup('Operator commands (on the database, with the server\'s environment):');
  const merchants = program.command('merchants').description('create, list, read and change merchants');
  merchants.command('create').description('create a merchant; prints its secret keys and webhook secrets, once')
    .requiredOption('--name <name>', 'the merchant\'s name').action(adminAction(ctx));
  merchants.command('list').description('every merchant, newest first').action(adminAction(ctx));
  merchants.command('get').description('a merchant with its contracts and stores').argument('<id>', 'mer_…').action(adminAction(ctx));
  merchants.command('update').description('change a merchant\'s name, branding (hosted pages, SDK), time zone and invoice identity')
    .argument('<id>', 'mer_…')
    .option('--name <name>', 'the merchant\'s name')
    .option('--display-name <name|none>', 'the name shown to buyers')
    .option('--primary-color <#rrggbb|none>', 'buttons and links of the hosted pages and the SDK')
    .option('--accent-color <#rrggbb|none>', 'the accent colour')
    .option('--timezone <zone|none>', 'local time on receipts, e.g. Pacific/Tahiti (none: MOTU_TIMEZONE)')
    .option('--legal-name <name|none>', 'the legal name on invoices')
    .option('--registration-number <n|none>', 'the registration number on invoices')
    .option('--tax-id <n|none>', 'the tax id on invoices')
    .option('--invoice-footer <text|none>', 'printed at the foot of every invoice and credit note')
    .option('--late-payment-terms <text|none>', 'the late-payment penalty terms on invoices (none: the statutory rate)')
    .option('--early-payment-discount <text|none>', 'the early-payment discount on invoices (none: no discount)')
    .option('--address <json|none>', 'the address on invoices: \'{"line1":…,"postalCode":…,"city":…,"country":"PF"}\'')
    .option('--platform <true|false>', 'a marketplace: its keys may onboard and manage sellers')
    .option('--agency <true|false>', 'an agency: its keys may manage client accounts under mandates')
    .addHelpText('after', '\n`none` clears a value (back to the default look or the merchant\'s name).')
    .action(adminAction(ctx));
  merchants.command('logo').description('set the logo of the hosted pages from a PNG, JPEG or WebP file (at most 512 KB), or remove it')
    .argument('<id>', 'mer_…').argument('<file|none>', 'the picture, or none to show the name\'s initial again')
    .action(adminAction(ctx));

  const contracts = program.command('contracts').description('a merchant\'s contracts: commission, fees, acquirer');
  contracts.command('create').description('create a contract')
    .requiredOption('--merchant <id>', 'mer_…')
    .option('--statement-label <label>', 'the label on the buyer\'s bank statement (required)')
    .option('--commission-rate <bp>', 'commission in basis points (required)')
    .option('--fixed-fee <cents>', 'fixed fee per payment (required)')
    .option('--authorization-fee <cents>', 'fee per authorization')
    .option('--tax-rate <bp>', 'tax on the fees, in basis points')
    .option('--dispute-fee <cents>', 'fee per dispute')
    .option('--default', 'the merchant\'s default contract')
    .option('--inactive', 'created inactive')
    .action(adminAction(ctx));
  contracts.command('update').description('change a contract; connect it to Monext for live payments (docs/live.md)')
    .argument('<id>', 'con_…')
    .option('--statement-label <label>', 'the label on the buyer\'s bank statement')
    .option('--commission-rate <bp>', 'commission in basis points')
    .option('--fixed-fee <cents>', 'fixed fee per payment')
    .option('--authorization-fee <cents>', 'fee per authorization')
    .option('--tax-rate <bp>', 'tax on the fees, in basis points')
    .option('--dispute-fee <cents>', 'fee per dispute')
    .option('--default', 'make it the merchant\'s default contract')
    .option('--active <true|false>', 'active or not')
    .option('--acquirer <simulator|monext>', 'who authorizes its live payments')
    .option('--monext-merchant-id <id>', 'Monext merchant id')
    .option('--monext-access-key <key>', 'Monext access key (stored sealed, never printed)')
    .option('--monext-point-of-sale <ref>', 'Monext point of sale reference')
    .option('--monext-contract-number <n>', 'Monext contract number')
    .option('--monext-environment <homologation|production>', 'Monext environment')
    .action(adminAction(ctx));

  const stores = program.command('stores').description('a merchant\'s stores (online shops and physical points of sale)');
  stores.command('create').description('create a store')
    .requiredOption('--merchant <id>', 'mer_…')
    .option('--code <code>', 'the store\'s code, unique per merchant (required)')
    .option('--name <name>', 'the store\'s name (required)')
    .option('--kind <online|physical>', 'online or physical (required)')
    .option('--contract <id>', 'its contract (default: the merchant\'s default)')
    .option('--inactive', 'created inactive')
    .action(adminAction(ctx));
  stores.command('update').description('change a store').argument('<id>', 'sto_…')
    .option('--name <name>', 'the store\'s name')
    .option('--active <true|false>', 'active or not')
    .option('--contract <id>', 'its contract')
    .action(adminAction(ctx));

  const keys = program.command('keys').description('a merchant\'s API keys');
  keys.command('create').description('create a secret key; prints it once')
    .requiredOption('--merchant <id>', 'mer_…')
    .option('--mode <test|live>', 'test or live (required)')
    .option('--permission <write|read>', 'write (default) or read')
    .option('--store <id>', 'bind the key to one store')
    .action(adminAction(ctx));
  keys.command('list').description('a merchant\'s keys, newest first: id, mode, permission, store, last four characters (never the secret)')
    .requiredOption('--merchant <id>', 'mer_…')
    .option('--mode <test|live>', 'only this mode (default: both)')
    .action(adminAction(ctx));
  keys.command('revoke').description('revoke a key (refused everywhere within seconds)').argument('<id>', 'key_…').action(adminAction(ctx));

  const users = program.command('users').description('a merchant\'s back-office users');
  users.command('create').description('create a back-office user; prints its one-time set-up link (docs/back-office.md)')
    .requiredOption('--merchant <id>', 'mer_…')
    .requiredOption('--email <email>', 'the user\'s email')
    .requiredOption('--role <role>', 'owner, admin, developer, support or analyst')
    .action(adminAction(ctx));
  users.command('list').description('a merchant\'s users').requiredOption('--merchant <id>', 'mer_…').action(adminAction(ctx));

  const adjustments = program.command('adjustments').description('corrections of a merchant\'s balance');
  adjustments.command('create').description('an adjustment transaction, available at once (docs/money.md)')
    .requiredOption('--merchant <id>', 'mer_…')
    .option('--mode <test|live>', 'test or live (required)')
    .option('--currency <EUR|XPF>', 'EUR or XPF (required)')
    .option('--amount <minor units>', 'signed, in the currency\'s smallest unit: --amount=-40 takes 40 (required)')
    .option('--reason <text>', 'why (required)')
    .action(adminAction(ctx));

  const disputes = program.command('disputes').description('disputes the bank reported');
  disputes.command('open').description('open a dispute on a captured payment (reasons: docs/money.md)')
    .argument('<payment-id>', 'pay_…')
    .option('--kind <chargeback|inquiry>', 'chargeback (default) or inquiry')
    .option('--reason <reason>', 'the bank\'s reason, e.g. fraudulent, credit_not_processed')
    .option('--amount <minor units>', 'disputed amount (default: what is left of the payment)')
    .action(adminAction(ctx));
  disputes.command('close').description('record the bank\'s decision').argument('<id>', 'dp_…')
    .requiredOption('--outcome <won|lost>', 'won or lost')
    .action(adminAction(ctx));

  const onboarding = program.command('onboarding-cases').description('marketplaces\' onboarding cases: review and decide (live mode)');
  onboarding.command('list').description('the cases awaiting a decision (IN_REVIEW), oldest first').action(adminAction(ctx));
  onboarding.command('decide').description('decide a case in review: APPROVED creates the seller and links it to its platform')
    .argument('<id>', 'obc_…')
    .requiredOption('--status <APPROVED|CORRECTION_REQUESTED|REFUSED>', 'the decision')
    .option('--reason <text...>', 'why (required for CORRECTION_REQUESTED and REFUSED; repeat for several)')
    .action(adminAction(ctx));

  const payouts = program.command('payouts').description('live payouts: the bank files and the bank\'s answers');
  payouts.command('transfers-xml').description('the day\'s live EUR payouts as a SEPA transfer file (pain.001.001.03), printed as is')
    .requiredOption('--date <YYYY-MM-DD>', 'the day').action(adminAction(ctx));
  payouts.command('transfers-csv').description('the day\'s live XPF payouts as CSV, printed as is')
    .requiredOption('--date <YYYY-MM-DD>', 'the day').action(adminAction(ctx));
  payouts.command('import-camt').description('record the bank\'s answers from a camt.054 file').argument('<file>', 'the camt.054 XML file').action(adminAction(ctx));
  payouts.command('paid').description('record that the bank paid a live payout').argument('<id>', 'po_…').action(adminAction(ctx));
  payouts.command('failed').description('record that the bank refused a live payout (its amount is credited back)').argument('<id>', 'po_…')
    .requiredOption('--reason <reason>', 'no_account, account_closed, declined or could_not_process')
    .action(adminAction(ctx));

  const ledger = program.command('ledger').description('the books');
  ledger.command('verify')
    .description('check every posting balances, every balance equals its transactions and every payment\'s transactions its captured and refunded amounts (exit 1 if not)')
    .action(adminAction(ctx));

  const payments = program.command('payments').description('read payments');
  payments.command('get').description('a payment of any merchant, with its attempts, refunds and fees').argument('<id>', 'pay_…').action(adminAction(ctx));

  const events = program.command('events').description('a merchant\'s events and their webhook deliveries');
  events.command('list').description('a merchant\'s events, newest first')
    .requiredOption('--merchant <id>', 'mer_…')
    .option('--mode <test|live>', 'test (default) or live')
    .option('--type <type>', 'one type, or a family: payment.*')
    .option('--payment <id>', 'only the events of this payment')
    .option('--limit <n>', '1 to 100 (default 20)')
    .option('--starting-after <id>', 'the next page: the last event id of the previous one')
    .action(adminAction(ctx));
  events.command('resend').description('deliver an event again to the targets it had (a running worker sends it), or to one endpoint')
    .argument('<event-id>', 'whe_…')
    .option('--endpoint <id>', 'only this webhook endpoint (we_…)')
    .action(adminAction(ctx));

  program.commandsGroup('Developer commands (HTTP to a running server, test mode):');
  program.command('listen')
    .description('forward new test-mode events, signed, to a local URL; prints the signing secret and follows its rotations')
    .requiredOption('--forward-to <url>', 'where to POST each event, e.g. http://localhost:4000/hooks')
    .addOption(new Option('--key <sk_test_…>', 'a test secret key').env('MOTU_SECRET_KEY').makeOptionMandatory())
    .addOption(new Option('--api-url <url>', 'the Motu server (default: MOTU_URL, else MOTU_PUBLIC_URL, else http://localhost:$PORT)'))
    .option('--events <types>', 'only these types, comma-separated; wildcards: payment.*')
    .action(async (options: { forwardTo: string; key: string; apiUrl?: string; events?: string }) => {
      const [{ listen }, { defaultApiUrl }] = await Promise.all([import('../listen.js'), import('./http.js')]);
      const filters = options.events?.split(',').map((s) => s.trim()).filter(Boolean);
      await listen({
        apiUrl: (options.apiUrl ?? defaultApiUrl()).replace(/\/+$/, ''),
        secretKey: options.key,
        forwardTo: options.forwardTo,
        events: filters,
        print: ctx.print,
      });
      ctx.code = EXIT.ok;
    });
  program.command('trigger')
    .description('produce a real test-mode event through the API, as an integration would')
    .addArgument(new Argument('<event>', 'the event to produce (listed below)'))
    .addOption(new Option('--key <sk_test_…>', 'a test secret key').env('MOTU_SECRET_KEY').makeOptionMandatory())
    .addOption(new Option('--api-url <url>', 'the Motu server (default: MOTU_URL, else MOTU_PUBLIC_URL, else http://localhost:$PORT)'))
    .option('--amount <minor units>', 'the payment\'s amount in EUR cents (default 2500)')
    .option('--notification-url <url>', 'the payment session\'s notificationUrl (default: the local receiver ${DEFAULT_NOTIFICATION_URL})')
    .addHelpText('after', `\nEvents:\n${triggerHelp()}\n\nPrints {event, objects, eventId, events}: what was created and every event it produced.`)
    .action(async (event: string, options: { key: string; apiUrl?: string; amount?: string; notificationUrl?: string }) => {
      if (!Object.hasOwn(TRIGGERS, event)) {
        const names = Object.keys(TRIGGERS);
        const near = names.map((n) => ({ n, d: distance(event, n) })).sort((a, b) => a.d - b.d)[0]!;
        throw usageError(`motu trigger cannot produce "${event}"`,
          `${near.d <= 4 ? `Did you mean ${near.n}? ` : ''}\`motu trigger --help\` lists the events: ${names.join(', ')}.`);
      }
      let amount: number | undefined;
      if (options.amount !== undefined) {
        if (!/^\d{1,9}$/.test(options.amount) || Number(options.amount) < 1) {
          throw new CliError('VALIDATION_ERROR', '--amount must be a whole number of cents, at least 1', 'Run e.g. `motu trigger payment.captured --amount 1500`.');
        }
        amount = Number(options.amount);
      }
      const [{ trigger }, { defaultApiUrl }] = await Promise.all([import('./trigger.js'), import('./http.js')]);
      const result = await trigger(event, {
        apiUrl: (options.apiUrl ?? defaultApiUrl()).replace(/\/+$/, ''),
        secretKey: options.key,
        amount,
        notificationUrl: options.notificationUrl,
      });
      ctx.print(JSON.stringify(result, null, 2));
      ctx.code = EXIT.ok;
    });

  return program;
}
