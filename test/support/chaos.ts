// Shared pieces of the chaos suite (test/chaos/*.ts, `npm run test:chaos`): real `motu serve` child processes that
// can be SIGKILLed and restarted, an HTTP caller that counts requests, the payment/refund load loop, and the
// after-the-storm invariants. Nothing of Motu is mocked: everything goes through HTTP to real processes.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { TestDatabase } from './harness.js';
import { sleep } from './wait.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const ENTRY = path.join(ROOT, 'src', 'start', 'main.ts');
export const CHAOS_ADMIN = 'chaos-admin-token-0123456789';

/** Counts for docs/reliability.md, printed at the end of each file. */
export const tally = { faults: 0, requests: 0, invariants: 0 };

/** One `motu serve --role <role>` child process, restartable on the same port and database. */
export class MotuProcess {
  child?: ChildProcess;
  constructor(
    private readonly d: TestDatabase,
    readonly port: number,
    readonly role: 'all' | 'api' | 'worker' = 'all',
    private readonly extraEnv: Record<string, string> = {},
  ) {}
  get url() {
    return `http://127.0.0.1:${this.port}`;
  }
  async start(): Promise<void> {
    const env: NodeJS.ProcessEnv = {
      ...process.env, MOTU_DATA_DIR: this.d.dataDir, PORT: String(this.port), LOG_LEVEL: this.role === 'worker' ? 'info' : 'warn',
      MOTU_ADMIN_TOKEN: CHAOS_ADMIN, MOTU_WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1', MOTU_WEBHOOK_TIMEOUT_MS: '2000', MOTU_RATE_LIMIT_MAX: '10000000', MOTU_TOKENS_PER_MINUTE: '10000000',
      MOTU_SEED_DEMO: 'false', MOTU_PUBLIC_URL: this.url, ...this.extraEnv,
    };
    delete env.DATABASE_URL;
    delete env.NODE_ENV;
    if (this.d.databaseUrl) env.DATABASE_URL = this.d.databaseUrl;
    const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, 'serve', '--role', this.role], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    let out = '';
    const keep = (c: Buffer) => (out = (out + c.toString()).slice(-8_000));
    child.stderr!.on('data', keep);
    // The api and all roles print "listening on" once ready; the worker role logs "motu started" (at info).
    const ready = this.role === 'worker' ? /motu started/ : /listening on/;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`motu serve --role ${this.role} did not start:\n${out}`)), 60_000);
      child.stdout!.on('data', (c: Buffer) => {
        keep(c);
        if (ready.test(out)) {
          clearTimeout(timer);
          out = '';
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`motu serve --role ${this.role} exited with ${code}:\n${out}`)));
    });
    child.removeAllListeners('exit');
  }
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  }
}

export interface Answer {
  status: number;
  body: any;
  /** No answer, and the request never reached a server (connection refused while it was down). */
  refused?: boolean;
}

export async function call(url: string, method: string, route: string, key: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  tally.requests++;
  try {
    const res = await fetch(`${url}${route}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(20_000),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  } catch (err) {
    // Connection refused (the server was down: never sent) or reset by the kill (maybe done): no answer, no claim.
    const code = (err as { cause?: { code?: string } }).cause?.code;
    return { status: 0, body: undefined, refused: code === 'ECONNREFUSED' };
  }
}

export interface Ledger {
  payments: Set<string>;
  captures: Map<string, number>; // 2xx captures per payment
  refunds: Map<string, { paymentId: string; amount: number }>;
  /** Refund Idempotency-Keys sent per payment: a payment never has more refunds than the distinct keys asked. */
  refundKeys: Map<string, Set<string>>;
  /** POSTs that got no answer (the server was killed under them): retried later with the same key. */
  unanswered: Map<string, { route: string; body: unknown; paymentId?: string; reference?: string }>;
}

export const newLedger = (): Ledger => ({ payments: new Set(), captures: new Map(), refunds: new Map(), refundKeys: new Map(), unanswered: new Map() });

/** Records a POST's answer in the ledger (shared by the load loop and the late retries). */
function record(ledger: Ledger, key: string, kind: 'session' | 'capture' | 'refund', paymentId: string | undefined, answer: Answer) {
  if (answer.status === 0) return;
  ledger.unanswered.delete(key);
  if (kind === 'session' && answer.status === 201) ledger.payments.add(answer.body.paymentId);
  if (kind === 'capture' && answer.status === 200) ledger.captures.set(paymentId!, (ledger.captures.get(paymentId!) ?? 0) + 1);
  if (kind === 'refund' && answer.status === 201) ledger.refunds.set(answer.body.id, { paymentId: paymentId!, amount: answer.body.originalAmount ?? 1_000 });
}

/**
 * Sends again, with the same Idempotency-Key, every POST that got no answer, as a merchant's retry would once the
 * in-flight claim of the dead request is abandoned (60 s, src/http/idempotency.ts). Returns the order references
 * of the sessions retried.
 */
export async function retryUnanswered(url: string, key: string, ledger: Ledger): Promise<string[]> {
  const entries = [...ledger.unanswered.entries()];
  const references: string[] = [];
  for (const [idem, r] of entries) {
    const kind = r.route.endsWith('/refund') ? 'refund' : r.route.endsWith('/capture') ? 'capture' : 'session';
    const answer = await call(url, 'POST', r.route, key, r.body, { 'idempotency-key': idem });
    assert.ok(answer.status > 0 && answer.status < 500, `retry of ${idem}: ${answer.status} ${JSON.stringify(answer.body)}`);
    record(ledger, idem, kind, r.paymentId, answer);
    if (r.reference) references.push(r.reference);
  }
  return references;
}

/** The card typed for a session: its token for the pay call, or null when it could not be had. */
export type CardEntry = (url: string, key: string, sessionId: string) => Promise<string | null>;

/** Test mode: the simulator's card fields (the token endpoint). */
export const simulatorCard: CardEntry = async (url, key, sessionId) => {
  const token = await call(url, 'POST', '/acquirer/v1/tokens', key, { mode: 'test', number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123', session: sessionId });
  return token.status === 201 ? token.body.token : null;
};

/**
 * One client's loop: session → card entry → pay (AUTO or MANUAL) → capture → two partial refunds, until told to stop.
 * `cardEntry`: the simulator's fields by default; a live run types the card in Monext's widget (test/chaos/live.ts).
 */
export async function client(url: string, key: string, notifyUrl: string, ledger: Ledger, stop: () => boolean, n: string, cardEntry: CardEntry = simulatorCard) {
  const post = async (idem: string, kind: 'session' | 'capture' | 'refund', route: string, body: unknown, paymentId?: string, reference?: string) => {
    const answer = await call(url, 'POST', route, key, body, { 'idempotency-key': idem });
    if (answer.status === 0 && !answer.refused) ledger.unanswered.set(idem, { route, body, paymentId, reference });
    record(ledger, idem, kind, paymentId, answer);
    return answer;
  };
  for (let i = 0; !stop(); i++) {
    const manual = i % 2 === 0;
    const sessionBody = {
      order: { reference: `C${n}-${i}`, amount: 10_000, currency: 'EUR' }, captureMode: manual ? 'MANUAL' : 'AUTO', email: 'c@example.com',
      redirectUrl: 'https://shop.example/r', notificationUrl: notifyUrl,
    };
    const session = await post(`s-${n}-${i}`, 'session', '/api/v1/payments/sessions', sessionBody, undefined, `C${n}-${i}`);
    if (session.status === 0) await sleep(100); // the server is down: do not spin
    if (session.status !== 201) continue;
    const token = await cardEntry(url, key, session.body.sessionId);
    if (token === null) continue;
    const paid = await call(url, 'POST', `/checkout/${session.body.sessionId}/pay`, key, { token });
    if (paid.status !== 200) continue;
    const id = session.body.paymentId as string;
    if (manual) {
      await post(`c-${id}`, 'capture', `/api/v1/payments/${id}/capture`, { amount: 8_000 }, id);
    }
    for (let r = 0; r < 2; r++) {
      const refundKey = `r-${id}-${r}`;
      ledger.refundKeys.set(id, (ledger.refundKeys.get(id) ?? new Set()).add(refundKey));
      await post(refundKey, 'refund', `/api/v1/payments/${id}/refund`, { amountCents: 1_000 }, id);
    }
  }
}

/**
 * Waits until no refund of the ledger's payments is `pending` (the worker's recover-refunds job settles those a
 * kill interrupted, MOTU_REFUND_RECOVERY_SECONDS after they were reserved). Returns how many were pending at first.
 */
export async function waitForRefundRecovery(url: string, key: string, ledger: Ledger, timeoutMs: number): Promise<{ pendingAtStop: number; left: number }> {
  const pendingOf = async (ids: Iterable<string>) => {
    const out: string[] = [];
    for (const id of ids) {
      const p = await call(url, 'GET', `/api/v1/payments/${id}`, key);
      assert.equal(p.status, 200, `payment ${id}: ${p.status}`);
      if ((p.body.refunds as Array<{ status: string }>).some((r) => r.status === 'pending')) out.push(id);
    }
    return out;
  };
  let pending = await pendingOf(ledger.payments);
  const pendingAtStop = pending.length;
  const until = Date.now() + timeoutMs;
  while (pending.length > 0 && Date.now() < until) {
    await sleep(2_000);
    pending = await pendingOf(pending);
  }
  return { pendingAtStop, left: pending.length };
}

/**
 * The invariants after the storm, for every payment that ever got a 2xx: it is there; at most one payment.captured
 * (and 2xx captures never more than one); refunded ≤ captured; every refund answered 201 is there and none is
 * pending; one refund event per succeeded refund; captured − refunded equals the events' grossAmount −
 * Σ refundOriginalAmount. Returns every event id of those payments (to check their delivery) and their statuses.
 */
export async function checkLedger(url: string, key: string, ledger: Ledger): Promise<{ eventIds: string[]; statuses: Record<string, number> }> {
  const eventIds: string[] = [];
  const statuses: Record<string, number> = {};
  for (const id of ledger.payments) {
    const p = await call(url, 'GET', `/api/v1/payments/${id}`, key);
    tally.invariants++;
    assert.equal(p.status, 200, `payment ${id} answered 201 and is gone`);
    statuses[p.body.status] = (statuses[p.body.status] ?? 0) + 1;
    const events = await call(url, 'GET', `/api/v1/events?paymentId=${id}&limit=100`, key);
    assert.equal(events.status, 200);
    const list = events.body.data as Array<{ id: string; type: string; data: any }>;
    eventIds.push(...list.map((e) => e.id));
    const captured = list.filter((e) => e.type === 'payment.captured');
    tally.invariants += 6;
    assert.ok(captured.length <= 1, `${id} captured ${captured.length} times`);
    assert.ok((ledger.captures.get(id) ?? 0) <= 1, `${id}: ${ledger.captures.get(id)} captures answered 200 under one key`);
    assert.ok(p.body.refundedAmount <= p.body.capturedAmount, `${id} refunded beyond captured`);
    const refunds = p.body.refunds as Array<{ id: string; status: string }>;
    tally.invariants++;
    assert.ok(refunds.length <= (ledger.refundKeys.get(id)?.size ?? 0),
      `${id}: ${refunds.length} refunds for ${ledger.refundKeys.get(id)?.size ?? 0} Idempotency-Keys (a retried refund ran twice)`);
    const refundIds = new Set(refunds.map((r) => r.id));
    for (const [rid, r] of ledger.refunds) {
      if (r.paymentId === id) {
        tally.invariants++;
        assert.ok(refundIds.has(rid), `refund ${rid} answered 201 and is gone`);
      }
    }
    assert.deepEqual(refunds.filter((r) => r.status === 'pending').map((r) => r.id), [], `${id}: refunds left pending`);
    const refundEvents = list.filter((e) => e.type === 'payment.refunded' || e.type === 'payment.partially_refunded');
    const eventRefunded = refundEvents.reduce((s, e) => s + e.data.refundOriginalAmount, 0);
    const eventCaptured = captured.reduce((s, e) => s + (e.data.grossAmount ?? e.data.settlement?.capturedAmount ?? 0), 0);
    assert.equal(eventRefunded, p.body.refundedAmount, `${id}: refund events ${eventRefunded} vs refunded ${p.body.refundedAmount}`);
    const succeeded = refunds.filter((r) => r.status === 'succeeded').length;
    assert.equal(refundEvents.length, succeeded, `${id}: one event per succeeded refund`);
    assert.equal(new Set(refundEvents.map((e) => e.data.refundId)).size, refundEvents.length, `${id}: a refund announced twice`);
    if (captured.length) {
      tally.invariants++;
      assert.equal(eventCaptured - eventRefunded, p.body.capturedAmount - p.body.refundedAmount, `${id}: totals do not reconcile`);
    }
  }
  return { eventIds, statuses };
}

export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;
}
