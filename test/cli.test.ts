// The `motu` command line as a user meets it: help and version, usage errors with their suggestion and exit code 2,
// every command's JSON and exit code (in-process through main() with a print callback, on each database), failures
// as {code, message, hint} without a stack, `motu trigger` producing real events through a listening app, `motu listen`
// following a rotation and filtering, and `motu events resend` delivering again.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import { verifyWebhook } from '../src/events/verify.js';
import { main } from '../src/start/cli.js';
import { listen } from '../src/start/listen.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createMerchant } from './support/factories.js';
import { paidPayment } from './support/payments.js';
import { freePort } from './support/ports.js';
import { eventually, sleep } from './support/wait.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** The real process, as a shell runs it (from the sources through tsx), with no database variable set. */
function spawnMotu(args: string[], env: Record<string, string> = {}, cwd = ROOT) {
  const base: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent', MOTU_SEED_DEMO: 'false', ...env };
  for (const name of ['DATABASE_URL', 'MOTU_SECRET_KEY', 'MOTU_URL', 'MOTU_DATA_DIR']) if (!(name in env)) delete base[name];
  const run = spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(ROOT, 'src/start/main.ts'), ...args], { cwd, env: base, encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A stack trace's frame line: none may reach the user for an expected failure. */
const STACK = /^\s+at .+:\d+:\d+\)?$/m;

describe('motu, the process', () => {
  it('--help, per-command help and `help <command>` exit 0 and describe the commands', () => {
    const top = spawnMotu(['--help']);
    assert.equal(top.status, 0, top.stderr);
    assert.match(top.stdout, /^Usage: motu \[options\] \[command\]/);
    for (const command of ['serve', 'migrate', 'merchants', 'contracts', 'stores', 'keys', 'users', 'adjustments', 'disputes', 'payouts', 'ledger', 'payments', 'events', 'listen', 'trigger']) {
      assert.match(top.stdout, new RegExp(`^  ${command}\\b`, 'm'), command);
    }
    assert.match(top.stdout, /2 {2}the command line is wrong/);

    const payouts = spawnMotu(['payouts', '--help']);
    assert.equal(payouts.status, 0);
    for (const sub of ['transfers-xml', 'transfers-csv', 'import-camt', 'paid', 'failed']) assert.match(payouts.stdout, new RegExp(`^  ${sub}\\b`, 'm'), sub);
    const update = spawnMotu(['contracts', 'update', '--help']);
    assert.equal(update.status, 0);
    assert.match(update.stdout, /^Usage: motu contracts update \[options\] <id>/);
    assert.match(update.stdout, /--monext-access-key <key>/);
    const viaHelp = spawnMotu(['help', 'keys']);
    assert.equal(viaHelp.status, 0);
    assert.match(viaHelp.stdout, /^  list \[options\]/m);
    const trigger = spawnMotu(['trigger', '--help']);
    assert.equal(trigger.status, 0);
    for (const event of ['payment.authorized', 'payment.captured', 'payment.refunded', 'payment.partially_refunded', 'payment.cancelled', 'payment.failed',
      'customer.created', 'customer.updated', 'payment_method.added', 'payment_method.removed', 'dispute.created', 'dispute.updated',
      'subscription.created', 'subscription.cancelled', 'invoice.issued', 'invoice.paid']) {
      assert.match(trigger.stdout, new RegExp(`^  ${event.replace('.', '\\.')}\\s`, 'm'), event);
    }
  });

  it('--version and -V print the package version', () => {
    for (const flag of ['--version', '-V']) {
      const run = spawnMotu([flag]);
      assert.equal(run.status, 0);
      assert.equal(run.stdout.trim(), VERSION);
    }
  });

  it('an unknown command or option: JSON with the did-you-mean as the hint, exit 2; no command: exit 2', () => {
    const command = spawnMotu(['paymnts']);
    assert.equal(command.status, 2);
    assert.deepEqual(JSON.parse(command.stdout), {
      code: 'USAGE_ERROR', message: "unknown command 'paymnts'", hint: 'Did you mean payments? Run `motu --help` to see the commands.',
    });
    const sub = spawnMotu(['payouts', 'transfers-xlm', '--date', '2026-01-01']);
    assert.equal(sub.status, 2);
    assert.match(JSON.parse(sub.stdout).hint, /^Did you mean transfers-xml\? Run `motu payouts --help`/);
    const option = spawnMotu(['keys', 'list', '--merchnt', 'mer_x']);
    assert.equal(option.status, 2);
    assert.deepEqual(JSON.parse(option.stdout), {
      code: 'USAGE_ERROR', message: "unknown option '--merchnt'", hint: 'Did you mean --merchant? Run `motu keys list --help` to see the arguments and options.',
    });
    const missing = spawnMotu(['merchants', 'get']);
    assert.equal(missing.status, 2);
    assert.equal(JSON.parse(missing.stdout).message, "missing required argument 'id'");
    const helpOf = spawnMotu(['help', 'nosuch']);
    assert.equal(helpOf.status, 2);
    assert.equal(JSON.parse(helpOf.stdout).message, "unknown command 'nosuch'");
    const none = spawnMotu([]);
    assert.equal(none.status, 2);
    assert.equal(JSON.parse(none.stdout).code, 'USAGE_ERROR');
    assert.match(none.stderr, /^Usage: motu/, 'the help, for the person, on stderr');
    for (const run of [command, sub, option, missing, none]) assert.doesNotMatch(run.stdout + run.stderr, STACK);
  });

  it('a configuration error and an unreachable database: JSON naming what to fix, exit 1, no stack trace', async () => {
    const config = spawnMotu(['merchants', 'list'], { MOTU_ADMIN_TOKEN: 'short' });
    assert.equal(config.status, 1);
    const body = JSON.parse(config.stdout);
    assert.equal(body.code, 'CONFIG_ERROR');
    assert.match(body.message, /MOTU_ADMIN_TOKEN must be at least 16 characters/);
    assert.match(body.hint, /^Correct MOTU_ADMIN_TOKEN in the environment/);
    assert.doesNotMatch(config.stdout + config.stderr, STACK);

    const port = await freePort();
    const db = spawnMotu(['merchants', 'list'], { DATABASE_URL: `postgres://someone:hunter2@127.0.0.1:${port}/motu` });
    assert.equal(db.status, 1);
    const dbBody = JSON.parse(db.stdout);
    assert.equal(dbBody.code, 'DATABASE_UNREACHABLE');
    assert.equal(dbBody.message, `Cannot reach PostgreSQL at 127.0.0.1:${port}/motu (ECONNREFUSED)`);
    assert.match(dbBody.hint, /DATABASE_URL/);
    assert.doesNotMatch(db.stdout + db.stderr, /hunter2/, 'the password is never printed');
    assert.doesNotMatch(db.stdout + db.stderr, STACK);

    const server = spawnMotu(['listen', '--forward-to', 'http://127.0.0.1:4000/hook', '--key', 'sk_test_x', '--api-url', `http://127.0.0.1:${port}`]);
    assert.equal(server.status, 1);
    assert.deepEqual(JSON.parse(server.stdout), {
      code: 'SERVER_UNREACHABLE', message: `Cannot reach Motu at http://127.0.0.1:${port} (ECONNREFUSED)`,
      hint: 'Start the server (`motu serve`, or `npm start`) or point --api-url (MOTU_URL) at it.',
    });
    assert.doesNotMatch(server.stdout + server.stderr, STACK);
  });

  it('an operator command in a folder without a database says so and creates none; migrate creates it', () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'motu-cwd-'));
    try {
      const lost = spawnMotu(['merchants', 'list'], {}, folder);
      assert.equal(lost.status, 1, lost.stdout + lost.stderr);
      const body = JSON.parse(lost.stdout);
      assert.equal(body.code, 'DATABASE_NOT_FOUND');
      assert.match(body.message, /MOTU_DATA_DIR is not set/);
      assert.match(body.hint, /MOTU_DATA_DIR/);
      assert.doesNotMatch(lost.stdout + lost.stderr, STACK);
      assert.equal(existsSync(path.join(folder, 'data')), false, 'no empty database was made');
      const elsewhere = spawnMotu(['users', 'list', '--merchant', 'mer_x'], { MOTU_DATA_DIR: path.join(folder, 'other') }, folder);
      assert.equal(JSON.parse(elsewhere.stdout).code, 'DATABASE_NOT_FOUND');
      assert.equal(existsSync(path.join(folder, 'other')), false);
      assert.equal(spawnMotu(['migrate'], {}, folder).status, 0);
      const listed = spawnMotu(['merchants', 'list'], {}, folder);
      assert.equal(listed.status, 0, listed.stdout);
      assert.deepEqual(JSON.parse(listed.stdout), { data: [] });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('--help and --version load neither the app, the services nor a database driver', () => {
    // A module hook records every module the process loads; the script runs `motu --help` and `--version` through main().
    const hook = `export async function initialize({ port }) { globalThis.port = port; }
      export async function resolve(s, c, next) { const r = await next(s, c); globalThis.port.postMessage(r.url); return r; }`;
    const script = `
      import { register } from 'node:module';
      import { MessageChannel } from 'node:worker_threads';
      const { port1, port2 } = new MessageChannel();
      const loaded = new Set();
      port1.on('message', (url) => loaded.add(url));
      port1.unref();
      register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}), { data: { port: port2 }, transferList: [port2] });
      const { main } = await import(${JSON.stringify(path.join(ROOT, 'src/start/cli.ts'))});
      const help = await main(['--help'], () => {});
      const version = await main(['--version'], () => {});
      await new Promise((r) => setTimeout(r, 100));
      console.log(JSON.stringify({ help, version, loaded: [...loaded] }));`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const { help, version, loaded } = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { help: number; version: number; loaded: string[] };
    assert.deepEqual([help, version], [0, 0]);
    assert.ok(loaded.some((u) => u.includes('/node_modules/commander/')), 'the hook saw the modules loaded');
    const heavy = loaded.filter((u) => /\/node_modules\/(fastify|better-sqlite3|pg|kysely|typebox)\/|\/src\/(app|compose|config|db\/database)\.ts$/.test(u));
    assert.deepEqual(heavy, []);
  });
});

/** A TCP relay from 127.0.0.1:port to 127.0.0.1:target; close() cuts every connection and stops listening. */
async function relayTo(port: number, target: number): Promise<{ close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(s);
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

/** main() in-process, with the app's database in the environment; its output parsed as the JSON it is. */
async function motu(env: Record<string, string | undefined>, ...argv: string[]): Promise<{ code: number; out: any; text: string }> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  if (env.DATABASE_URL === undefined) delete process.env.DATABASE_URL;
  const lines: string[] = [];
  try {
    const code = await main(argv, (line) => lines.push(line));
    const text = lines.join('\n');
    let out: unknown;
    try {
      out = JSON.parse(text);
    } catch {
      out = undefined;
    }
    return { code, out, text };
  } finally {
    process.env = saved;
  }
}

eachDatabase('motu commands', (dialect) => {
  const suite = withMerchantApp(dialect, { serve: true, receiver: true, workers: true });
  const { t, m, rx } = suite;
  const env = () => ({ MOTU_DATA_DIR: t.dataDir, DATABASE_URL: t.databaseUrl, MOTU_PUBLIC_URL: 'http://localhost:3000', MOTU_SEED_DEMO: 'false', LOG_LEVEL: 'silent' });
  const run = (...argv: string[]) => motu(env(), ...argv);

  it('the operator commands print JSON and exit 0; refusals print {code, message, fields, hint} and exit 1', async () => {
    assert.deepEqual(await run('migrate'), { code: 0, out: { migrated: [] }, text: JSON.stringify({ migrated: [] }, null, 2) });
    const created = await run('merchants', 'create', '--name', 'CLI shop');
    assert.equal(created.code, 0);
    const id = created.out.id as string;
    assert.match(created.out.testSecretKey, /^sk_test_/);
    assert.ok((await run('merchants', 'list')).out.data.some((x: { id: string }) => x.id === id));
    const updated = await run('merchants', 'update', id, '--display-name', 'CLI', '--primary-color', '#112233');
    assert.deepEqual([updated.code, updated.out.displayName, updated.out.primaryColor], [0, 'CLI', '#112233']);
    const cleared = await run('merchants', 'update', id, '--display-name', 'none');
    assert.equal(cleared.out.displayName, null);

    const contract = await run('contracts', 'create', '--merchant', id, '--statement-label', 'CLISHOP', '--commission-rate', '150', '--fixed-fee', '25');
    assert.equal(contract.code, 0, contract.text);
    const changed = await run('contracts', 'update', contract.out.id, '--commission-rate', '175', '--active', 'false');
    assert.deepEqual([changed.code, changed.out.commissionRate, changed.out.active], [0, 175, false]);
    const store = await run('stores', 'create', '--merchant', id, '--code', 'web', '--name', 'Web', '--kind', 'online');
    assert.equal(store.code, 0, store.text);
    assert.equal((await run('stores', 'update', store.out.id, '--name', 'Web shop')).out.name, 'Web shop');

    const key = await run('keys', 'create', '--merchant', id, '--mode', 'test', '--permission', 'read');
    assert.equal(key.code, 0);
    const keys = await run('keys', 'list', '--merchant', id);
    assert.equal(keys.code, 0);
    assert.deepEqual(keys.out.data.map((k: { mode: string }) => k.mode).sort(), ['live', 'test', 'test']);
    const listed = keys.out.data.find((k: { id: string }) => k.id === key.out.id);
    assert.deepEqual(listed, { id: key.out.id, mode: 'test', permission: 'read', storeId: null, last4: key.out.secretKey.slice(-4), createdAt: listed.createdAt, revokedAt: null, createdBy: null, role: null });
    for (const secret of [key.out.secretKey, created.out.testSecretKey, created.out.liveSecretKey]) assert.ok(!keys.text.includes(secret), 'no secret listed');
    assert.deepEqual((await run('keys', 'list', '--merchant', id, '--mode', 'live')).out.data.map((k: { mode: string }) => k.mode), ['live']);
    const revoked = await run('keys', 'revoke', key.out.id);
    assert.deepEqual([revoked.code, revoked.out.revoked], [0, true]);

    const adjusted = await run('adjustments', 'create', '--merchant', id, '--mode', 'test', '--currency', 'EUR', '--amount=-40', '--reason', 'Correction');
    assert.deepEqual([adjusted.code, adjusted.out.amount], [0, -40]);
    assert.deepEqual((await run('users', 'list', '--merchant', id)).out, { data: [] });
    const verified = await run('ledger', 'verify');
    assert.deepEqual([verified.code, verified.out.ok], [0, true]);

    const bad = await run('contracts', 'create', '--merchant', id, '--statement-label', 'X', '--commission-rate', 'ten', '--fixed-fee', '1');
    assert.equal(bad.code, 1);
    assert.equal(bad.out.code, 'VALIDATION_ERROR');
    assert.deepEqual(bad.out.fields, [{ field: '--commission-rate', message: 'must be a whole number' }]);
    assert.match(bad.out.hint, /`motu contracts create --help` lists its options/);
    const schema = await run('stores', 'create', '--merchant', id, '--code', 'x', '--name', 'X', '--kind', 'floating');
    assert.equal(schema.code, 1);
    assert.equal(schema.out.fields[0].field, 'kind');
    const unknown = await run('merchants', 'get', 'mer_0000000000000000000000');
    assert.equal(unknown.code, 1);
    assert.equal(unknown.out.code, 'NOT_FOUND');
    assert.match(unknown.out.hint, /^Check the id: the list commands print them/);
    for (const args of [['payouts', 'paid', 'po_nope'], ['disputes', 'close', 'dp_nope', '--outcome', 'won'], ['payments', 'get', 'pay_nope'], ['events', 'resend', 'whe_nope'], ['keys', 'list', '--merchant', 'mer_nope']]) {
      const answer = await run(...args);
      assert.equal(answer.code, 1, args.join(' '));
      assert.equal(answer.out.code, 'NOT_FOUND', args.join(' '));
      assert.equal(typeof answer.out.hint, 'string');
    }
    const operator = await run('payouts', 'transfers-xml', '--date', '2026-11-20');
    assert.equal(operator.code, 1);
    assert.equal(operator.out.code, 'OPERATOR_ACCOUNT_NOT_CONFIGURED');
    assert.match(operator.out.hint, /^Set MOTU_OPERATOR_NAME and MOTU_OPERATOR_IBAN/);
  });

  it('payments get and events list read any merchant\'s payment and events', async () => {
    const paymentId = await paidPayment(t, m.testKey, { amount: 1234 });
    const got = await run('payments', 'get', paymentId);
    assert.equal(got.code, 0, got.text);
    assert.deepEqual([got.out.id, got.out.status, got.out.amount], [paymentId, 'captured', 1234]);
    assert.equal(got.out.attempts.length, 1);
    const events = await run('events', 'list', '--merchant', m.id, '--payment', paymentId);
    assert.equal(events.code, 0);
    assert.deepEqual(events.out.data.map((e: { type: string }) => e.type), ['payment.captured', 'payment.authorized']);
    const one = await run('events', 'list', '--merchant', m.id, '--type', 'payment.*', '--limit', '1');
    assert.deepEqual([one.out.data.length, one.out.data[0].type, one.out.hasMore], [1, 'payment.captured', true]);
    assert.deepEqual((await run('events', 'list', '--merchant', m.id, '--mode', 'live')).out, { data: [], hasMore: false });
    const badLimit = await run('events', 'list', '--merchant', m.id, '--limit', '0');
    assert.deepEqual([badLimit.code, badLimit.out.code, badLimit.out.fields], [1, 'VALIDATION_ERROR', [{ field: '--limit', message: 'must be between 1 and 100' }]]);
  });

  it('events resend: the event is delivered a second time to the endpoint, signed', async () => {
    const merchant = await createMerchant(t, 'Resend');
    const endpoint = await t.api(merchant.testKey, 'POST', '/api/v1/webhook-endpoints', { url: rx.url('/resend'), events: ['customer.*'] });
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    const customer = await t.api(merchant.testKey, 'POST', '/api/v1/customers', { name: 'Twice' });
    await rx.waitFor(() => rx.for('/resend').length === 1, 10_000, 'the first delivery');
    const eventId = rx.for('/resend')[0]!.body.id;
    assert.equal(rx.for('/resend')[0]!.body.data.id, customer.body.id);
    const resent = await run('events', 'resend', eventId);
    assert.equal(resent.code, 0, resent.text);
    assert.equal(resent.out.eventId, eventId);
    assert.deepEqual(resent.out.deliveries.map((d: { target: { endpointId: string } }) => d.target.endpointId), [endpoint.body.id]);
    await rx.waitFor(() => rx.for('/resend').length === 2, 10_000, 'the second delivery');
    const [first, second] = rx.for('/resend');
    assert.equal(second!.body.id, eventId);
    assert.deepEqual(second!.raw, first!.raw, 'the same bytes');
    assert.equal(verifyWebhook(second!.raw, second!.headers, merchant.testWebhookSecret).ok, true);
    const deliveries = await t.api(merchant.testKey, 'GET', `/api/v1/events/${eventId}/deliveries`);
    assert.equal(deliveries.body.data.length, 2);
  });

  it('trigger: each event is produced through the API and listed by GET /api/v1/events', async () => {
    const merchant = await createMerchant(t, 'Trigger');
    const expected: Record<string, string[]> = {
      'payment.authorized': ['sessionId', 'paymentId'],
      'payment.captured': ['sessionId', 'paymentId'],
      'payment.partially_refunded': ['sessionId', 'paymentId', 'refundId'],
      'payment.refunded': ['sessionId', 'paymentId', 'refundId'],
      'payment.cancelled': ['sessionId', 'paymentId'],
      'payment.failed': ['sessionId', 'paymentId'],
      'customer.created': ['customerId'],
      'customer.updated': ['customerId'],
      'payment_method.added': ['customerId', 'walletSessionId', 'paymentMethodId'],
      'payment_method.removed': ['customerId', 'walletSessionId', 'paymentMethodId'],
      'dispute.created': ['sessionId', 'paymentId', 'disputeId'],
      'dispute.updated': ['sessionId', 'paymentId', 'disputeId'],
      'subscription.created': ['customerId', 'walletSessionId', 'paymentMethodId', 'subscriptionId'],
      'subscription.cancelled': ['customerId', 'walletSessionId', 'paymentMethodId', 'subscriptionId'],
      'invoice.issued': ['customerId', 'invoiceId'],
      'invoice.paid': ['customerId', 'invoiceId'],
    };
    // Invoices name who issues them: without a legal identity the trigger says what is missing, and makes no invoice.
    const noIdentity = await run('trigger', 'invoice.issued', '--key', merchant.testKey, '--api-url', suite.baseUrl);
    assert.equal(noIdentity.code, 1, noIdentity.text);
    assert.match(noIdentity.out.code, /^INVOICING_/);
    await t.admin('PATCH', `/admin/v1/merchants/${merchant.id}`, {
      legalName: 'Trigger SARL', registrationNumber: 'C12345', address: { line1: '1 rue du Port', postalCode: '98714', city: 'Papeete', country: 'PF' },
    });
    for (const [event, objects] of Object.entries(expected)) {
      const out = await run('trigger', event, '--key', merchant.testKey, '--api-url', suite.baseUrl, '--notification-url', rx.url('/notify'));
      assert.equal(out.code, 0, `${event}: ${out.text}`);
      assert.equal(out.out.event, event);
      assert.deepEqual(Object.keys(out.out.objects).sort(), [...objects].sort(), event);
      const listed = await t.api(merchant.testKey, 'GET', `/api/v1/events?type=${event}&limit=1`);
      assert.equal(listed.body.data[0].id, out.out.eventId, event);
      assert.ok(out.out.events.some((e: { id: string; type: string }) => e.id === out.out.eventId && e.type === event));
      if (out.out.objects.paymentId) {
        assert.equal(listed.body.data[0].data.paymentId, out.out.objects.paymentId);
        assert.ok(out.out.events.every((e: { id: string }) => typeof e.id === 'string'));
      }
      for (const [kind, field] of [['disputeId', 'disputeId'], ['subscriptionId', 'subscriptionId'], ['invoiceId', 'invoiceId']]) {
        if (out.out.objects[kind]) assert.equal(listed.body.data[0].data[field], out.out.objects[kind], event);
      }
    }
    // What each trigger made is what its description says: the dispute accepted (lost), the subscription cancelled, the invoice paid.
    const made = async (event: string) => (await run('trigger', event, '--key', merchant.testKey, '--api-url', suite.baseUrl)).out.objects;
    assert.equal((await t.api(merchant.testKey, 'GET', `/api/v1/disputes/${(await made('dispute.updated')).disputeId}`)).body.status, 'lost');
    assert.equal((await t.api(merchant.testKey, 'GET', `/api/v1/subscriptions/${(await made('subscription.cancelled')).subscriptionId}`)).body.status, 'cancelled');
    const invoice = (await t.api(merchant.testKey, 'GET', `/api/v1/billing/invoices/${(await made('invoice.paid')).invoiceId}`)).body;
    assert.deepEqual([invoice.status, invoice.amountRemaining], ['paid', 0]);
    const captured = await run('trigger', 'payment.captured', '--key', merchant.testKey, '--api-url', suite.baseUrl, '--notification-url', rx.url('/notify'), '--amount', '777');
    assert.deepEqual(captured.out.events.map((e: { type: string }) => e.type), ['payment.authorized', 'payment.captured'], 'oldest first');
    const payment = await t.api(merchant.testKey, 'GET', `/api/v1/payments/${captured.out.objects.paymentId}`);
    assert.deepEqual([payment.body.status, payment.body.amount], ['captured', 777]);

    const wrongKey = await run('trigger', 'payment.captured', '--key', 'sk_test_doesnotexist', '--api-url', suite.baseUrl);
    assert.equal(wrongKey.code, 1);
    assert.equal(wrongKey.out.code, 'UNAUTHORIZED');
    assert.match(wrongKey.out.hint, /--key or MOTU_SECRET_KEY/);
    const live = await run('trigger', 'payment.captured', '--key', merchant.liveKey, '--api-url', suite.baseUrl);
    assert.deepEqual([live.code, live.out.code], [1, 'TEST_KEY_REQUIRED']);
    const noKey = await run('trigger', 'payment.captured', '--api-url', suite.baseUrl);
    assert.deepEqual([noKey.code, noKey.out.message], [2, "required option '--key <sk_test_…>' not specified"]);
    const withEnvKey = await motu({ ...env(), MOTU_SECRET_KEY: merchant.testKey, MOTU_URL: suite.baseUrl }, 'trigger', 'customer.created');
    assert.equal(withEnvKey.code, 0, withEnvKey.text);
    // Without --notification-url the session notifies the local receiver that `motu listen --forward-to` points at,
    // never an address whose deliveries are retried for hours.
    const byDefault = await run('trigger', 'payment.authorized', '--key', merchant.testKey, '--api-url', suite.baseUrl);
    const session = await t.api(merchant.testKey, 'GET', `/api/v1/payments/sessions/${byDefault.out.objects.sessionId}`);
    assert.equal(session.body.notificationUrl, 'http://localhost:4000/hooks');
  });

  it('listen: prints the signing secret, follows a rotation, forwards only the --events asked', async () => {
    const merchant = await createMerchant(t, 'Listener');
    const lines: string[] = [];
    const abort = new AbortController();
    const running = listen({
      apiUrl: suite.baseUrl, secretKey: merchant.testKey, forwardTo: rx.url('/listen'), print: (l) => lines.push(l), signal: abort.signal,
      events: ['customer.created', 'payment.*'], secretPollMs: 100,
    });
    try {
      await eventually('motu listen prints Ready', () => lines.some((l) => l.startsWith('Ready')), 10_000, 10);
      assert.equal(lines[0], `Webhook signing secret: ${merchant.testWebhookSecret}`);
      assert.match(lines[1]!, /^Ready\. Forwarding test-mode events \(only customer\.created, payment\.\*\) to http:\/\/127\.0\.0\.1:\d+\/listen/);
      await sleep(300);
      const c = await t.api(merchant.testKey, 'POST', '/api/v1/customers', { name: 'Before' });
      await t.api(merchant.testKey, 'PATCH', `/api/v1/customers/${c.body.id}`, { name: 'Filtered out' });
      await paidPayment(t, merchant.testKey, { amount: 500 });
      await rx.waitFor(() => rx.for('/listen').length >= 3, 10_000, 'customer.created and the payment\'s two events');
      await sleep(300);
      assert.deepEqual(rx.for('/listen').map((r) => r.body.type), ['customer.created', 'payment.authorized', 'payment.captured']);
      for (const r of rx.for('/listen')) assert.equal(verifyWebhook(r.raw, r.headers, merchant.testWebhookSecret).ok, true);

      const rotated = await t.api(merchant.testKey, 'POST', '/api/v1/webhooks/signing-secret/rotate');
      assert.equal(rotated.status, 200);
      const fresh = rotated.body.webhookSecret as string;
      await eventually('the rotation line', () => lines.some((l) => l.startsWith('Signing secret rotated')), 5000, 10);
      assert.ok(lines.find((l) => l.startsWith('Signing secret rotated'))!.includes(fresh));
      await t.api(merchant.testKey, 'POST', '/api/v1/customers', { name: 'After' });
      await rx.waitFor(() => rx.for('/listen').length >= 4, 10_000, 'the event after the rotation');
      const after = rx.for('/listen')[3]!;
      assert.equal(after.body.type, 'customer.created');
      const ts = String(after.headers['x-service-timestamp']);
      assert.equal(after.headers['x-service-signature-v2'], createHmac('sha256', fresh).update(`${ts}.`).update(after.raw).digest('hex'), 'signed with the new secret');
      assert.equal(after.headers['x-service-signature-v2-previous'], createHmac('sha256', merchant.testWebhookSecret).update(`${ts}.`).update(after.raw).digest('hex'),
        'and with the previous one beside it, as the delivery worker does');
      assert.equal(verifyWebhook(after.raw, after.headers, fresh).ok, true);
      // The line is printed once the receiver has answered: it may come just after the request was recorded.
      await eventually('one line per forwarded event', () => lines.filter((l) => l.includes('whe_')).length === 4, 5000, 10);
    } finally {
      abort.abort();
      await running;
    }
  });

  it('listen: reconnects after the server goes away and forwards what was recorded meanwhile, nothing twice', async () => {
    const merchant = await createMerchant(t, 'Reconnecting');
    // A TCP relay in front of the app: closing it is the server going away for `listen`, reopening it is the server back.
    const port = await freePort();
    const target = Number(new URL(suite.baseUrl).port);
    const relay = () => relayTo(port, target);
    let up = await relay();
    const lines: string[] = [];
    const abort = new AbortController();
    const running = listen({ apiUrl: `http://127.0.0.1:${port}`, secretKey: merchant.testKey, forwardTo: rx.url('/reconnect'), print: (l) => lines.push(l), signal: abort.signal });
    try {
      await eventually('motu listen prints Ready', () => lines.some((l) => l.startsWith('Ready')), 10_000, 10);
      await sleep(300);
      await t.api(merchant.testKey, 'POST', '/api/v1/customers', { name: 'Before the cut' });
      await rx.waitFor(() => rx.for('/reconnect').length === 1, 10_000, 'the first event');
      await up.close();
      await eventually('the interruption line', () => lines.some((l) => /^Stream interrupted \(.+\); reconnecting…$/.test(l)), 5000, 10);
      await t.api(merchant.testKey, 'POST', '/api/v1/customers', { name: 'While away' });
      up = await relay();
      await rx.waitFor(() => rx.for('/reconnect').length >= 2, 10_000, 'the event recorded while away');
      await sleep(1500);
      assert.deepEqual(rx.for('/reconnect').map((r) => r.body.data.name), ['Before the cut', 'While away'], 'each once');
    } finally {
      abort.abort();
      await running;
      await up.close();
    }
  });

  it('events resend of an event that was never sent: the hint says to name an endpoint', async () => {
    const merchant = await createMerchant(t, 'No endpoint');
    const customer = await t.api(merchant.testKey, 'POST', '/api/v1/customers', { name: 'Nobody listens' });
    const event = (await t.api(merchant.testKey, 'GET', '/api/v1/events?type=customer.created')).body.data.find((e: any) => e.data.id === customer.body.id);
    const resent = await run('events', 'resend', event.id);
    assert.equal(resent.code, 1);
    assert.equal(resent.out.code, 'BUSINESS_RULE_VIOLATION');
    assert.match(resent.out.hint, /register an endpoint .* then run `motu events resend ID --endpoint we_…`/);
  });

  it('listen through the command line: a wrong key, a live key and an unknown --events type are JSON with a hint', async () => {
    const base = ['listen', '--forward-to', rx.url('/never'), '--api-url', suite.baseUrl];
    const wrong = await run(...base, '--key', 'sk_test_doesnotexist');
    assert.equal(wrong.code, 1);
    assert.equal(wrong.out.code, 'UNAUTHORIZED');
    assert.match(wrong.out.message, /^Reading the signing secret: the key was refused/);
    const live = await run(...base, '--key', m.liveKey);
    assert.deepEqual([live.code, live.out.code, live.out.message], [1, 'TEST_KEY_REQUIRED', 'motu listen needs a test secret key (sk_test_…)']);
    const filter = await run(...base, '--key', m.testKey, '--events', 'payment.captued,customer.*');
    assert.equal(filter.code, 2);
    assert.equal(filter.out.code, 'USAGE_ERROR');
    assert.match(filter.out.hint, /^Did you mean one of payment\.authorized, payment\.captured/);
    assert.equal(rx.for('/never').length, 0);
  });
});
