// The receipt (PDF) a paying customer downloads or receives: Tahitian text and its amounts intact in an embedded
// Unicode font, lines adding up to the total with discounts, the merchant's local time, the order number, TEST on
// a test receipt, the contract's statement label; a test-mode receipt is mailed only to an allow-listed address;
// the checkout's email field promises a receipt only when one will be mailed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, parseConfig } from '../src/config.js';
import { money } from '../src/pages/format.js';
import { eachDatabase, ManualClock, type TestApp } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createSession, paySession } from './support/payments.js';
import { pdfText } from './support/pdf.js';
import { fakeSmtp, type FakeSmtp } from './support/smtp.js';

const TAHITI = 'Fare ʻUte — Pāpeʻete';
const ORDER = {
  reference: 'CMD-ʻOTE-7', amount: 3500, currency: 'XPF', discount: 300,
  items: [{ product: 'Pāreu Tiʻare', unitPrice: 1500, quantity: 2, discount: 200 }, { product: 'Monoï', unitPrice: 1000, quantity: 1 }],
};

test('MOTU_TIMEZONE: Pacific/Tahiti by default, an IANA name, refused at start otherwise; the test mail allow-list is checked too', () => {
  assert.equal(parseConfig({}).timezone, 'Pacific/Tahiti');
  assert.equal(parseConfig({ MOTU_TIMEZONE: 'Europe/Paris' }).timezone, 'Europe/Paris');
  for (const bad of ['Mars/Olympus', 'UTC+25', 'Pacific/Tahiti; rm']) {
    assert.throws(() => parseConfig({ MOTU_TIMEZONE: bad }), (e: unknown) => e instanceof ConfigError && e.variable === 'MOTU_TIMEZONE', bad);
  }
  const smtp = { MOTU_SMTP_URL: 'smtp://127.0.0.1:2525', MOTU_MAIL_FROM: 'pay@motu.example' };
  assert.deepEqual(parseConfig(smtp).mail?.testAllowlist, []);
  assert.deepEqual(parseConfig({ ...smtp, MOTU_TEST_MAIL_ALLOWLIST: ' QA@Shop.example , shop.test ' }).mail?.testAllowlist, ['qa@shop.example', 'shop.test']);
  assert.throws(() => parseConfig({ ...smtp, MOTU_TEST_MAIL_ALLOWLIST: 'not an address' }), (e: unknown) => e instanceof ConfigError && e.variable === 'MOTU_TEST_MAIL_ALLOWLIST');
});

eachDatabase('receipts', (dialect) => {
  const clock = new ManualClock(new Date('2026-03-02T10:00:00.000Z'));
  const { t, m: merchant } = withMerchantApp(dialect, { clock, merchantName: TAHITI });

  async function receipt(languageCode: string) {
    const s = await createSession(t, merchant.testKey, { extra: { order: ORDER, languageCode } });
    await paySession(t, s.sessionId);
    const res = await t.app.inject({ method: 'GET', url: `/checkout/success/receipt.pdf?sessionId=${s.sessionId}` });
    assert.equal(res.statusCode, 200);
    return pdfText(res.rawPayload);
  }

  test('Tahitian text and amounts intact (embedded DejaVu Sans), lines adding up with discounts, order number, TEST, local time, statement label', async () => {
    const { lines, fonts } = await receipt('fr');
    // Lines come back with their spaces (no-break ones too) as plain spaces.
    const xpf = (n: number) => money(n, 'XPF', 'fr').replace(/\s/g, ' ');
    assert.ok(fonts.some((f) => /\+DejaVuSans$/.test(f)) && fonts.some((f) => /\+DejaVuSans-Bold$/.test(f)), fonts.join(', '));
    assert.ok(!fonts.some((f) => /Helvetica/.test(f)), 'no standard Latin-1 font is used');
    assert.ok(lines.includes(`TEST · Mode test : aucun paiement réel`), lines.join('\n'));
    assert.ok(lines.includes(TAHITI), lines.join('\n'));
    for (const line of [
      `Pāreu Tiʻare × 2 ${xpf(3000)}`, `Remise ${xpf(-200)}`, `Monoï × 1 ${xpf(1000)}`, `Remise sur la commande ${xpf(-300)}`, `Total ${xpf(3500)}`,
      'Commande CMD-ʻOTE-7', 'Date 2 mars 2026 à 00:00 (Pacific/Tahiti)',
    ]) assert.ok(lines.includes(line), `"${line}" in:\n${lines.join('\n')}`);
    // A sentence may wrap: read as one text.
    assert.ok(lines.join(' ').includes('Ce paiement apparaît sur votre relevé de carte sous le libellé « FARE ʻUTE — PĀPEʻETE ».'), lines.join('\n'));
    assert.ok(!lines.some((l) => l.includes('\uFFFD')), 'every glyph maps back to its character');
  });

  test("the merchant's own time zone (admin API), in English", async () => {
    for (const timezone of ['Mars/Olympus', 'Europe/Paris; DROP', '']) {
      const bad = await t.admin('PATCH', `/admin/v1/merchants/${merchant.id}`, { timezone });
      assert.equal(bad.status, 400, timezone);
      assert.equal(bad.body.code, 'VALIDATION_ERROR');
    }
    const set = await t.admin('PATCH', `/admin/v1/merchants/${merchant.id}`, { timezone: 'Europe/Paris' });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.timezone, 'Europe/Paris');
    const { lines } = await receipt('en');
    assert.ok(lines.includes('Date 2 March 2026 at 11:00 (Europe/Paris)'), lines.join('\n'));
    assert.ok(lines.includes('Order CMD-ʻOTE-7'), lines.join('\n'));
    const reset = await t.admin('PATCH', `/admin/v1/merchants/${merchant.id}`, { timezone: null });
    assert.equal(reset.body.timezone, null);
  });

  test('without a mailer the email field promises no receipt by mail', async () => {
    const s = await createSession(t, merchant.testKey, { extra: { email: undefined, languageCode: 'en' } });
    const page = await t.app.inject({ method: 'GET', url: `/checkout/${s.sessionId}` });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /id="email"/);
    assert.doesNotMatch(page.body, /receipt is sent/i);
  });
});

eachDatabase('receipt mail in test mode', (dialect) => {
  let smtp: FakeSmtp;
  before(async () => { smtp = await fakeSmtp(); });
  after(async () => { await smtp.stop(); });
  const mailEnv = (allowlist?: string) => () => ({
    MOTU_SMTP_URL: smtp.url, MOTU_MAIL_FROM: 'pay@motu.example', ...(allowlist === undefined ? {} : { MOTU_TEST_MAIL_ALLOWLIST: allowlist }),
  });
  const jobsFor = async (t: TestApp, paymentId: string) => t.db.kysely.selectFrom('mail_jobs').select('recipient').where('subject_id', '=', paymentId).execute();

  describe('no allow-list', () => {
    const { t, m } = withMerchantApp(dialect, { env: mailEnv() });

    test('no allow-list: no test receipt is mailed, and the email field promises none', async () => {
      const s = await createSession(t, m.testKey, { extra: { email: 'someone@example.com' } });
      await paySession(t, s.sessionId);
      assert.deepEqual(await jobsFor(t, s.paymentId), []);
      const typed = await createSession(t, m.testKey, { extra: { email: undefined, languageCode: 'en' } });
      assert.doesNotMatch((await t.app.inject({ method: 'GET', url: `/checkout/${typed.sessionId}` })).body, /receipt is sent/i);
    });
  });

  describe('an allow-list', () => {
    const { t, m } = withMerchantApp(dialect, { env: mailEnv('qa@shop.example, team.test') });

    test('an allow-list: listed addresses and domains receive test receipts, others do not; the field promises one', async () => {
      for (const [email, mailed] of [['QA@shop.example', true], ['dev@team.test', true], ['customer@example.com', false], ['qa@shop.example.evil', false]] as const) {
        const s = await createSession(t, m.testKey, { extra: { email } });
        await paySession(t, s.sessionId);
        assert.equal((await jobsFor(t, s.paymentId)).length, mailed ? 1 : 0, email);
      }
      const typed = await createSession(t, m.testKey, { extra: { email: undefined, languageCode: 'en' } });
      assert.match((await t.app.inject({ method: 'GET', url: `/checkout/${typed.sessionId}` })).body, /Your receipt is sent to this address/);
    });
  });
});
