// The real `motu` process: `motu serve` on a fresh data folder prints its first credentials once, answers over
// real HTTP with them, stops cleanly on SIGTERM; the admin commands of the CLI print JSON.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { eachDatabase, freshDatabase, type TestDatabase } from './support/harness.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const ENTRY = path.join(ROOT, 'src', 'start', 'main.ts');

interface Running {
  child: ChildProcess;
  output: () => string;
  url: string;
}

function childEnv(d: TestDatabase, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, MOTU_DATA_DIR: d.dataDir, PORT: '0', LOG_LEVEL: 'info', ...extra };
  for (const name of ['DATABASE_URL', 'MOTU_ADMIN_TOKEN', 'NODE_ENV', 'MOTU_SEED_DEMO', 'MOTU_PUBLIC_URL']) delete env[name];
  if (d.databaseUrl) env.DATABASE_URL = d.databaseUrl;
  return env;
}

/** Every process started here, so that a failed test never leaves one running (it would hold the test file open). */
const children = new Set<ChildProcess>();

function startServe(d: TestDatabase): Promise<Running> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, 'serve'], { cwd: ROOT, env: childEnv(d), stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    child.once('exit', () => children.delete(child));
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`motu serve did not start within 90 s:\n${out}`));
    }, 90_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, output: () => out, url: m[1]! });
      }
    });
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`motu serve exited with ${code}:\n${out}`));
    });
  });
}

function stopped(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  child.removeAllListeners('exit');
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve({ code: child.exitCode, signal: null });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

function runCli(d: TestDatabase, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, ...args], { cwd: ROOT, env: childEnv(d, env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

function printed(output: string, label: string): string {
  const m = new RegExp(`${label}:\\s+(\\S+)`).exec(output);
  assert.ok(m, `"${label}" printed in:\n${output}`);
  return m[1]!;
}

eachDatabase('motu serve (child process)', (dialect) => {
  let d: TestDatabase;
  let running: Running | undefined;
  /** The demo merchant's test key, printed by the first start. */
  let demoKey = '';
  before(async () => {
    d = await freshDatabase(dialect, { migrate: false });
    await d.db.close(); // the child process owns the database
  });
  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    await d.drop();
  });

  it('prints the first credentials, serves the API with them over HTTP, and exits cleanly on SIGTERM', async () => {
    running = await startServe(d);
    const out = running.output();
    // With the listening line, the two addresses meant for people (the README's sample output).
    assert.match(out, /^ {2}Back-office: +http:\/\/\S+\/dashboard$/m);
    assert.match(out, /^ {2}API reference: +http:\/\/\S+\/docs$/m);
    const adminToken = printed(out, 'Admin token');
    const key = printed(out, 'Demo test secret key');
    demoKey = key;
    const webhookSecret = printed(out, 'Demo webhook secret');
    const storeId = printed(out, 'Demo store');
    assert.match(key, /^sk_test_[0-9A-Za-z]{32}$/);
    assert.match(webhookSecret, /^whsec_[0-9A-Za-z]{32}$/);
    assert.match(storeId, /^sto_/);
    assert.match(out, /code "web"/);

    const call = async (method: string, route: string, token: string, body?: unknown) => {
      const res = await fetch(running!.url + route, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: (await res.json()) as any };
    };

    // The README's curl: a payment session with the demo key and the demo store code.
    const session = await call('POST', '/api/v1/payments/sessions', key, {
      order: { reference: 'ORDER-1001', amount: 2500, currency: 'XPF' },
      redirectUrl: 'https://shop.example.com/return',
      notificationUrl: 'https://shop.example.com/hooks/motu',
      storeId: 'web',
    });
    assert.equal(session.status, 201, JSON.stringify(session.body));
    assert.match(session.body.sessionId, /^ses_/);
    assert.match(session.body.paymentId, /^pay_/);
    assert.deepEqual(session.body.store, { id: storeId, code: 'web', name: 'Demo Shop online' });
    assert.match(session.body.checkoutUrl, new RegExp(`/checkout/${session.body.sessionId}$`));
    const read = await call('GET', `/api/v1/payments/sessions/${session.body.sessionId}`, key);
    assert.equal(read.status, 200);

    const secret = await call('GET', '/api/v1/webhooks/signing-secret', key);
    assert.equal(secret.status, 200);
    assert.equal(secret.body.webhookSecret, webhookSecret);

    // The printed back-office link sets the demo owner's password and signs in.
    const setupUrl = printed(out, 'Back-office set-up');
    assert.match(setupUrl, /^http:\/\/localhost:\d+\/dashboard\/setup\/usr_[0-9A-Za-z]{22}\.[A-Za-z0-9_-]{43}$/);
    const setUp = await fetch(`${running.url}/dashboard/api/setup`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: setupUrl.split('/').at(-1), password: 'demo owner password 1' }),
    });
    assert.equal(setUp.status, 200);
    assert.equal(((await setUp.json()) as { user: { email: string } }).user.email, 'owner@demo-shop.example');

    const merchant = await call('POST', '/admin/v1/merchants', adminToken, { name: 'Second shop' });
    assert.equal(merchant.status, 201);
    assert.equal((await call('GET', '/admin/v1/merchants', 'adm_wrong_token_000000000000')).status, 401);

    running.child.kill('SIGTERM');
    const exit = await stopped(running.child);
    assert.deepEqual(exit, { code: 0, signal: null });

    // The JSON log lines never carry a secret (the banner above them is for the operator's terminal).
    const logs = running.output().split('\n').filter((l) => l.startsWith('{'));
    assert.ok(logs.length > 0);
    for (const secretValue of [adminToken, key, webhookSecret, merchant.body.testSecretKey]) {
      assert.ok(!logs.some((l) => l.includes(secretValue)), 'no secret in the logs');
    }
  });

  it('prints the credentials only once: a second start on the same database shows none; a connected event stream (motu listen) does not hold the shutdown', async () => {
    running = await startServe(d);
    assert.doesNotMatch(running.output(), /Admin token:|Demo test secret key:|Demo webhook secret:|sk_test_|whsec_|adm_/);
    // What `motu listen` keeps open: the event stream. SIGTERM ends it, and the process stops as cleanly as without it.
    const stream = await fetch(`${running.url}/api/v1/events/stream`, { headers: { authorization: `Bearer ${demoKey}` } });
    assert.equal(stream.status, 200);
    const reader = stream.body!.getReader();
    await reader.read(); // the stream's first comment line: connected
    const ended = (async () => { while (!(await reader.read()).done); return 'ended'; })().catch(() => 'ended');
    running.child.kill('SIGTERM');
    assert.equal(await ended, 'ended');
    assert.deepEqual(await stopped(running.child), { code: 0, signal: null });
    assert.doesNotMatch(running.output(), /shutdown failed/);
    assert.equal((await stopped(running.child)).code, 0);
  });

  it('on SIGTERM finishes the requests in flight, and every 201 it gave is still there after a restart', async () => {
    const created = await runCli(d, ['merchants', 'create', '--name', 'Shutdown shop']);
    assert.equal(created.code, 0, created.stderr);
    const key = JSON.parse(created.stdout).testSecretKey as string;
    running = await startServe(d);
    const url = running.url;
    const post = (i: number): Promise<{ status: number; body: { id?: string } }> =>
      fetch(`${url}/api/v1/customers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ externalId: `shutdown-${i}` }),
      }).then(
        async (res) => ({ status: res.status, body: (await res.json()) as { id?: string } }),
        () => ({ status: 0, body: {} }), // refused once the server stopped accepting: never answered, never stored
      );
    const requests = Array.from({ length: 60 }, (_, i) => post(i));
    await Promise.race(requests);
    running.child.kill('SIGTERM');
    const answers = await Promise.all(requests);
    assert.deepEqual(await stopped(running.child), { code: 0, signal: null });
    for (const a of answers) assert.ok([201, 503, 0].includes(a.status), `unexpected ${a.status} ${JSON.stringify(a.body)}`);
    const createdIds = answers.filter((a) => a.status === 201).map((a) => a.body.id!);
    assert.ok(createdIds.length > 0);

    running = await startServe(d);
    for (const id of createdIds) {
      const res: Response = await fetch(`${running.url}/api/v1/customers/${id}`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(res.status, 200, `${id} answered 201 before the shutdown, so it is stored`);
    }
    running.child.kill('SIGTERM');
    assert.equal((await stopped(running.child)).code, 0);
  });

  it('runs the admin commands of the CLI, printing JSON', async () => {
    const created = await runCli(d, ['merchants', 'create', '--name', 'CLI shop']);
    assert.equal(created.code, 0, created.stderr);
    const merchant = JSON.parse(created.stdout);
    assert.match(merchant.id, /^mer_/);
    assert.match(merchant.testSecretKey, /^sk_test_/);
    assert.match(merchant.defaultContractId, /^mcf_/);

    // The receipts' local time: a merchant's time zone is an IANA name, set and cleared from the CLI.
    const zoned = await runCli(d, ['merchants', 'update', merchant.id, '--timezone', 'Pacific/Noumea']);
    assert.equal(zoned.code, 0, zoned.stderr);
    assert.equal(JSON.parse(zoned.stdout).timezone, 'Pacific/Noumea');
    const badZone = await runCli(d, ['merchants', 'update', merchant.id, '--timezone', 'Mars/Olympus']);
    assert.equal(badZone.code, 1);
    assert.equal(JSON.parse(badZone.stdout).details.field, 'timezone');
    const cleared = await runCli(d, ['merchants', 'update', merchant.id, '--timezone', 'none']);
    assert.equal(cleared.code, 0, cleared.stderr);
    assert.equal(JSON.parse(cleared.stdout).timezone, null);

    const store = await runCli(d, ['stores', 'create', '--merchant', merchant.id, '--code', 'kiosk', '--name', 'Kiosk', '--kind', 'physical']);
    assert.equal(store.code, 0, store.stderr);
    assert.equal(JSON.parse(store.stdout).kind, 'physical');

    const key = await runCli(d, ['keys', 'create', '--merchant', merchant.id, '--mode', 'live', '--permission', 'read']);
    assert.equal(key.code, 0, key.stderr);
    const k = JSON.parse(key.stdout);
    assert.equal(k.permission, 'read');
    assert.match(k.secretKey, /^sk_live_/);

    const revoked = await runCli(d, ['keys', 'revoke', k.id]);
    assert.equal(revoked.code, 0);
    assert.equal(JSON.parse(revoked.stdout).revoked, true);

    // Mistakes print the error shape as JSON and exit 1.
    const bad = await runCli(d, ['keys', 'create', '--merchant', merchant.id, '--mode', 'prod']);
    assert.equal(bad.code, 1);
    const error = JSON.parse(bad.stdout);
    assert.equal(error.code, 'VALIDATION_ERROR');
    assert.equal(error.details.field, 'mode');

    const migrate = await runCli(d, ['migrate']);
    assert.equal(migrate.code, 0);
    assert.deepEqual(JSON.parse(migrate.stdout), { migrated: [] });

    // A configuration mistake is JSON too (docs/cli.md): the variable named, a hint, no stack anywhere.
    const badConfig = await runCli(d, ['migrate'], { PORT: 'eighty' });
    assert.equal(badConfig.code, 1);
    const configError = JSON.parse(badConfig.stdout);
    assert.equal(configError.code, 'CONFIG_ERROR');
    assert.match(configError.message, /PORT/);
    assert.match(configError.hint, /PORT/);
    assert.doesNotMatch(badConfig.stdout + badConfig.stderr, /\bat .+:\d+:\d+/, 'a configuration mistake prints no stack');
  });
});
