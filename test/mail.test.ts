// Mail: receipts after a card payment and card-link invitations, queued in mail_jobs on the transaction of the
// state change and sent by the worker role's `send-mail` job to a real SMTP server (a fake relay on 127.0.0.1,
// outside Motu), with retries when the relay is down. Without MOTU_SMTP_URL nothing is queued.
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, test } from 'node:test';
import { scheduledJobs } from '../src/start/workers.js';
import { eachDatabase, ManualClock, type TestApp } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createCustomer } from './support/factories.js';
import { PASSWORD, signedInUser } from './support/back-office.js';
import { createSession, paySession } from './support/payments.js';
import { decodePart, fakeSmtp, mimeParts, subjectOf, type FakeSmtp } from './support/smtp.js';

const FROM = 'Motu payments <pay@motu.example>';
const START = new Date('2026-03-02T10:00:00.000Z');

/** Runs the worker role's mail job once, at the clock's time; its logs are kept to check what they say. */
async function runMailJob(t: TestApp, logs: string[] = []): Promise<number> {
  const line = (level: string) => (obj: object, msg?: string) => logs.push(`${level} ${msg ?? ''} ${JSON.stringify(obj)}`);
  const job = scheduledJobs(t.db, t.clock, t.config, { info: line('info'), warn: line('warn'), error: line('error') })
    .find((j) => j.name === 'send-mail');
  assert.ok(job, 'the worker role runs send-mail when MOTU_SMTP_URL is set');
  return (await job.run(t.clock.now())) as number;
}

async function jobsOf(t: TestApp) {
  return t.db.kysely.selectFrom('mail_jobs').selectAll().orderBy('created_at').execute();
}

eachDatabase('mail', (dialect) => {
  let smtp: FakeSmtp;
  const clock = new ManualClock(START);
  before(async () => {
    smtp = await fakeSmtp();
  });
  after(async () => {
    await smtp.stop();
  });
  beforeEach(() => {
    clock.set(START);
    smtp.received.length = 0;
  });
  // A fresh app for each test: each reads the mail queue from empty.
  // Test-mode receipts go only to the allow-listed (MOTU_TEST_MAIL_ALLOWLIST): every address here is example.com.
  const { t, m } = withMerchantApp(dialect, {
    eachTest: true, clock, merchantName: 'Fare Ute',
    env: () => ({ MOTU_SMTP_URL: smtp.url, MOTU_MAIL_FROM: FROM, MOTU_TEST_MAIL_ALLOWLIST: 'example.com' }),
  });

  test('a card payment through the checkout sends the receipt, PDF attached, to privateData.customerEmail', async () => {
    const session = await createSession(t, m.testKey, { amount: 2500, extra: { email: 'buyer@example.com', languageCode: 'fr' } });
    const next = await paySession(t, session.sessionId);
    assert.equal(next.next, 'redirect');
    const [job] = await jobsOf(t);
    assert.ok(job, 'the receipt is queued with the payment');
    assert.equal(job.kind, 'receipt');
    assert.equal(job.subject_id, session.paymentId);
    assert.equal(job.status, 'pending');
    assert.equal(smtp.received.length, 0, 'nothing is sent by the request itself');

    const logs: string[] = [];
    assert.equal(await runMailJob(t, logs), 1);
    assert.equal(smtp.received.length, 1);
    const mail = smtp.received[0]!;
    assert.deepEqual(mail.to, ['buyer@example.com']);
    assert.equal(mail.from, 'pay@motu.example');
    assert.match(subjectOf(mail.raw), /^Votre reçu de paiement · Fare Ute$/);
    const pdf = mimeParts(mail.raw).find((p) => /content-type:\s*application\/pdf/i.test(p.headers));
    assert.ok(pdf, 'a PDF part is attached');
    const payment = await t.db.kysely.selectFrom('payments').selectAll().where('id', '=', session.paymentId).executeTakeFirstOrThrow();
    assert.match(pdf.headers, new RegExp(`filename="?recu-${payment.reference}\\.pdf`));
    const bytes = decodePart(pdf);
    assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-');
    assert.ok(bytes.length > 1000);
    const text = mimeParts(mail.raw).find((p) => /content-type:\s*text\/plain/i.test(p.headers))!;
    assert.match(decodePart(text).toString('utf8'), /25,00\s€/);
    assert.equal((await jobsOf(t))[0]!.status, 'sent');
    // Logs name the job, never the address nor the body.
    assert.ok(logs.some((l) => l.startsWith('info mail sent')));
    for (const l of logs) assert.doesNotMatch(l, /buyer@example\.com|25,00|Fare Ute/);

    // Sent once: the next run has nothing to do.
    assert.equal(await runMailJob(t), 0);
    assert.equal(smtp.received.length, 1);
  });

  test('an email typed on the checkout page receives the receipt, in English', async () => {
    const session = await createSession(t, m.testKey, { amount: 1000, extra: { email: undefined, saveCustomer: true, languageCode: 'en' } });
    await paySession(t, session.sessionId, undefined, { email: 'typed@example.com' });
    assert.equal(await runMailJob(t), 1);
    const mail = smtp.received[0]!;
    assert.deepEqual(mail.to, ['typed@example.com']);
    assert.equal(subjectOf(mail.raw), 'Your payment receipt · Fare Ute');
    assert.ok(mimeParts(mail.raw).some((p) => /filename="?receipt-SPR/i.test(p.headers)));
  });

  test("a sent invoice is mailed to its customer with its page's address and its PDF; once paid, a queued one is skipped", async () => {
    assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { legalName: 'Fare Ute SARL', address: { line1: '1 rue', postalCode: '98713', city: 'Papeete', country: 'PF' }, registrationNumber: 'T1' })).status, 200);
    const customerId = await createCustomer(t, m.testKey, { email: 'client@example.com' });
    const inv = (await t.api(m.testKey, 'POST', '/api/v1/billing/invoices', { customerId, currency: 'XPF', lines: [{ description: 'Loyer', quantity: 1, unitPrice: 85_000 }] })).body;
    const open = (await t.api(m.testKey, 'POST', `/api/v1/billing/invoices/${inv.id}/finalize`)).body;
    const sent = (await t.api(m.testKey, 'POST', `/api/v1/billing/invoices/${inv.id}/send`)).body;
    const [job] = await jobsOf(t);
    assert.deepEqual([job!.kind, job!.subject_id], ['invoice', inv.id]);
    assert.equal(await runMailJob(t), 1);
    const mail = smtp.received[0]!;
    assert.deepEqual(mail.to, ['client@example.com']);
    assert.equal(subjectOf(mail.raw), `Facture ${open.number} · Fare Ute SARL`);
    const text = decodePart(mimeParts(mail.raw).find((p) => /content-type:\s*text\/plain/i.test(p.headers))!).toString('utf8');
    assert.ok(text.includes(sent.url), 'the page address');
    assert.match(text, /85\s000/);
    const pdf = mimeParts(mail.raw).find((p) => /content-type:\s*application\/pdf/i.test(p.headers))!;
    assert.match(pdf.headers, new RegExp(`filename="?${open.number}\\.pdf`));

    const second = (await t.api(m.testKey, 'POST', '/api/v1/billing/invoices', { customerId, currency: 'XPF', lines: [{ description: 'Loyer', quantity: 1, unitPrice: 1000 }] })).body;
    await t.api(m.testKey, 'POST', `/api/v1/billing/invoices/${second.id}/finalize`);
    await t.api(m.testKey, 'POST', `/api/v1/billing/invoices/${second.id}/send`);
    await t.api(m.testKey, 'POST', `/api/v1/billing/invoices/${second.id}/payments`, { amount: 1000, method: 'cash' });
    assert.equal(await runMailJob(t), 0);
    assert.equal((await jobsOf(t)).find((j) => j.subject_id === second.id)!.status, 'skipped');
  });

  test('a refused card queues no receipt', async () => {
    const session = await createSession(t, m.testKey);
    await paySession(t, session.sessionId, '4000000000000002');
    assert.equal((await jobsOf(t)).length, 0);
  });

  test('a card link with sendEmail is mailed in its locale; emailSent turns true once the relay accepted it', async () => {
    const customerId = await createCustomer(t, m.testKey, { email: 'wallet@example.com' });
    const created = await t.api(m.testKey, 'POST', `/api/v1/customers/${customerId}/card-links`, { sendEmail: true, locale: 'en' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.emailSent, false, 'not sent yet: the request never waits for SMTP');
    assert.equal(created.body.emailStatus, 'queued');

    assert.equal(await runMailJob(t), 1);
    const mail = smtp.received[0]!;
    assert.deepEqual(mail.to, ['wallet@example.com']);
    assert.equal(subjectOf(mail.raw), 'Fare Ute invites you to save a card');
    const text = decodePart(mimeParts(mail.raw).find((p) => /content-type:\s*text\/plain/i.test(p.headers))!).toString('utf8');
    assert.ok(text.includes(created.body.url), 'the mail carries the link URL');
    assert.match(text, /Save my card/);

    const read = await t.api(m.testKey, 'GET', `/api/v1/card-links/${created.body.id}`);
    assert.equal(read.body.emailSent, true);
    assert.equal(read.body.emailStatus, 'sent');

    // French by default; without sendEmail nothing is queued.
    const fr = await t.api(m.testKey, 'POST', `/api/v1/customers/${customerId}/card-links`, { sendEmail: true });
    const quiet = await t.api(m.testKey, 'POST', `/api/v1/customers/${customerId}/card-links`, {});
    assert.equal(quiet.body.emailStatus, 'not_requested');
    assert.equal(await runMailJob(t), 1);
    assert.equal(smtp.received.length, 2);
    assert.equal(subjectOf(smtp.received[1]!.raw), 'Fare Ute vous invite à enregistrer une carte');
    assert.ok(decodePart(mimeParts(smtp.received[1]!.raw).find((p) => /text\/plain/i.test(p.headers))!).toString('utf8').includes(fr.body.url));
  });

  test('a card link cancelled before its mail went out is not mailed', async () => {
    const customerId = await createCustomer(t, m.testKey, { email: 'late@example.com' });
    const created = await t.api(m.testKey, 'POST', `/api/v1/customers/${customerId}/card-links`, { sendEmail: true });
    await t.api(m.testKey, 'POST', `/api/v1/card-links/${created.body.id}/cancel`);
    assert.equal(await runMailJob(t), 0);
    assert.equal(smtp.received.length, 0);
    const read = await t.api(m.testKey, 'GET', `/api/v1/card-links/${created.body.id}`);
    assert.equal(read.body.emailSent, false);
    assert.equal(read.body.emailStatus, 'skipped');
  });

  test('a back-office invitation is mailed with its set-up link, which signs the invitee in; the mail of an invitee removed before it left is skipped', async () => {
    const owner = await signedInUser(t, m.id, 'owner');
    const invited = await owner.call('POST', '/dashboard/api/users', { email: 'teammate@shop.example', role: 'analyst' });
    assert.equal(invited.status, 201, JSON.stringify(invited.body));
    assert.equal(invited.body.emailSent, true);
    assert.equal(invited.body.setupUrl, null, 'the link goes to the invitee only');
    assert.equal(await runMailJob(t), 1);
    const mail = smtp.received.at(-1)!;
    assert.deepEqual(mail.to, ['teammate@shop.example']);
    assert.match(subjectOf(mail.raw), /Fare Ute/);
    const text = mimeParts(mail.raw).map((p) => decodePart(p).toString('utf8')).join('\n');
    const url = /http:\/\/localhost:3000\/dashboard\/setup\/(usr_[0-9A-Za-z]+\.[A-Za-z0-9_-]+)/.exec(text);
    assert.ok(url, text);
    const setUp = await t.api(undefined, 'POST', '/dashboard/api/setup', { token: url[1], password: PASSWORD });
    assert.equal(setUp.status, 200, JSON.stringify(setUp.body));
    assert.equal(setUp.body.user.email, 'teammate@shop.example');
    assert.equal(setUp.body.user.role, 'analyst');
    // Invited again after removal: a new mail, and the first link (used) would not be sent again.
    await owner.call('DELETE', `/dashboard/api/users/${setUp.body.user.id}`);
    const again = await owner.call('POST', '/dashboard/api/users', { email: 'teammate@shop.example', role: 'support' });
    assert.equal(again.body.emailSent, true);
    await owner.call('DELETE', `/dashboard/api/users/${setUp.body.user.id}`);
    await runMailJob(t);
    const last = (await jobsOf(t)).at(-1)!;
    assert.equal(last.kind, 'invitation');
    assert.equal(last.status, 'skipped', 'the invitee was removed before the mail left: its link would not work');
  });
});

eachDatabase('mail with the relay down', (dialect) => {
  let down: FakeSmtp;
  const clock = new ManualClock(START);
  beforeEach(async () => {
    clock.set(START);
    down = await fakeSmtp({ start: false });
  });
  afterEach(async () => {
    await down.stop();
  });
  const { t, m } = withMerchantApp(dialect, {
    eachTest: true, clock,
    env: () => ({ MOTU_SMTP_URL: down.url, MOTU_MAIL_FROM: FROM, MOTU_TEST_MAIL_ALLOWLIST: 'example.com' }),
  });

  test('a relay that is down is retried on the schedule until it accepts', async () => {
    const session = await createSession(t, m.testKey, { extra: { email: 'retry@example.com' } });
    await paySession(t, session.sessionId);
    const customerId = await createCustomer(t, m.testKey, { email: 'retry-link@example.com' });
    const link = await t.api(m.testKey, 'POST', `/api/v1/customers/${customerId}/card-links`, { sendEmail: true });

    const logs: string[] = [];
    assert.equal(await runMailJob(t, logs), 0);
    for (const job of await jobsOf(t)) {
      assert.equal(job.status, 'pending');
      assert.equal(job.attempts, 1);
      assert.equal(job.next_attempt_at, new Date(clock.now().getTime() + 30_000).toISOString(), 'first retry after 30 s');
      assert.match(job.last_error ?? '', /ECONNREFUSED|ESOCKET|ECONNECTION/);
    }
    assert.ok(logs.some((l) => l.startsWith('warn mail attempt failed')));
    for (const l of logs) assert.doesNotMatch(l, /retry(-link)?@example\.com/);
    assert.equal((await t.api(m.testKey, 'GET', `/api/v1/card-links/${link.body.id}`)).body.emailStatus, 'queued');

    // Still down at the second attempt: the next retry is 120 s later.
    clock.advance(30_000);
    assert.equal(await runMailJob(t), 0);
    assert.ok((await jobsOf(t)).every((j) => j.attempts === 2 && j.next_attempt_at === new Date(clock.now().getTime() + 120_000).toISOString()));

    await down.start();
    clock.advance(60_000);
    assert.equal(await runMailJob(t), 0, 'not due yet');
    assert.equal(down.received.length, 0);
    clock.advance(60_000);
    assert.equal(await runMailJob(t), 2);
    assert.deepEqual(down.received.map((m) => m.to[0]).sort(), ['retry-link@example.com', 'retry@example.com']);
    assert.ok((await jobsOf(t)).every((j) => j.status === 'sent' && j.attempts === 3));
    const read = await t.api(m.testKey, 'GET', `/api/v1/card-links/${link.body.id}`);
    assert.equal(read.body.emailSent, true);
    // Every attempt is a row: two failed with the relay's error, then the one that sent, per job.
    for (const job of await jobsOf(t)) {
      const attempts = await t.db.kysely.selectFrom('mail_attempts').selectAll().where('mail_id', '=', job.id).orderBy('attempt').execute();
      assert.deepEqual(attempts.map((a) => [a.attempt, a.outcome]), [[1, 'failed'], [2, 'failed'], [3, 'sent']]);
      assert.match(attempts[0]!.error ?? '', /ECONNREFUSED|ESOCKET|ECONNECTION/);
      assert.equal(attempts[2]!.error, null);
      for (const a of attempts) assert.doesNotMatch(JSON.stringify(a), /retry(-link)?@example\.com/);
    }
  });

  test('a worker stopped mid-send: its lease runs out, the attempt is recorded as lost and the mail sent again', async () => {
    await down.start();
    const session = await createSession(t, m.testKey, { extra: { email: 'lost@example.com' } });
    await paySession(t, session.sessionId);
    // A worker claimed the job (stage 1) and stopped before recording anything.
    const [job] = await jobsOf(t);
    await t.db.kysely.updateTable('mail_jobs').set({ status: 'sending', claim_token: 'stopped-worker', lease_until: new Date(clock.now().getTime() + 120_000).toISOString(), attempts: 1 })
      .where('id', '=', job!.id).execute();
    assert.equal(await runMailJob(t), 0, 'leased to the stopped worker');
    clock.advance(121_000);
    assert.equal(await runMailJob(t), 1);
    const attempts = await t.db.kysely.selectFrom('mail_attempts').selectAll().where('mail_id', '=', job!.id).orderBy('attempt').execute();
    assert.deepEqual(attempts.map((a) => [a.attempt, a.outcome]), [[1, 'lost'], [2, 'sent']]);
    assert.equal((await jobsOf(t))[0]!.status, 'sent');
    assert.equal(down.received.length, 1);
  });

  test('a relay that never comes back ends the job failed after the last retry', async () => {
    const customerId = await createCustomer(t, m.testKey, { email: 'never@example.com' });
    const link = await t.api(m.testKey, 'POST', `/api/v1/customers/${customerId}/card-links`, { sendEmail: true, expiresIn: 2_592_000 });
    for (const wait of [0, 30, 120, 600, 3600, 21600]) {
      clock.advance(wait * 1000);
      await runMailJob(t);
    }
    const [job] = await jobsOf(t);
    assert.equal(job!.status, 'failed');
    assert.equal(job!.attempts, 6);
    const read = await t.api(m.testKey, 'GET', `/api/v1/card-links/${link.body.id}`);
    assert.equal(read.body.emailSent, false);
    assert.equal(read.body.emailStatus, 'failed');
  });
});

eachDatabase('mail without MOTU_SMTP_URL', (dialect) => {
  const { t, m } = withMerchantApp(dialect);

  test('nothing is queued: the receipt stays downloadable and card links answer emailSent false', async () => {
    assert.equal(t.config.mail, undefined);
    assert.ok(!scheduledJobs(t.db, t.clock, t.config).some((j) => j.name === 'send-mail'));
    const session = await createSession(t, m.testKey, { extra: { email: 'buyer@example.com' } });
    await paySession(t, session.sessionId);
    const receipt = await t.api(undefined, 'GET', `/checkout/success/receipt.pdf?sessionId=${session.sessionId}`);
    assert.equal(receipt.status, 200);
    assert.equal(receipt.headers['content-type'], 'application/pdf');
    const customerId = await createCustomer(t, m.testKey, { email: 'wallet@example.com' });
    const link = await t.api(m.testKey, 'POST', `/api/v1/customers/${customerId}/card-links`, { sendEmail: true });
    assert.equal(link.status, 201);
    assert.equal(link.body.emailSent, false);
    assert.equal(link.body.emailStatus, 'not_sent');
    assert.equal((await t.db.kysely.selectFrom('mail_jobs').selectAll().execute()).length, 0);
  });
});
