// The operator's bank files through the admin API and `motu`, on every database: the day's live EUR payouts as a SEPA
// credit transfer file valid against the ISO 20022 pain.001.001.03 schema (sums, count, accounts, escaping), the XPF
// ones as CSV, both marking their payouts in transit; the bank's camt.054 answers imported (paid, returned and
// credited back, unknown and mismatched entries reported, a second import changing nothing); bad input refused.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, it } from 'node:test';
import { XmlDocument, XsdValidator } from 'libxml2-wasm';
import { parseConfig } from '../src/config.js';
import { verifyLedger } from '../src/modules/ledger/verify.js';
import { eventsOfType } from './support/events.js';
import { ADMIN_TOKEN, eachDatabase, ManualClock } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const SCHEMA = readFileSync(path.join(ROOT, 'test/fixtures/iso20022/pain.001.001.03.xsd'), 'utf8');
const OPERATOR = { MOTU_OPERATOR_NAME: 'Motu Operator SAS', MOTU_OPERATOR_IBAN: 'DE89 3704 0044 0532 0130 00', MOTU_OPERATOR_BIC: 'COBADEFFXXX' };
const EUR_IBAN = 'FR7630006000010000000000152';
const XPF_IBAN = 'FR7630006000010000000000346';

/** Errors of the document against the official schema (none: valid). */
function schemaErrors(xml: string): string[] {
  const schema = XmlDocument.fromString(SCHEMA);
  const validator = XsdValidator.fromDoc(schema);
  const doc = XmlDocument.fromString(xml);
  try {
    validator.validate(doc);
    return [];
  } catch (err) {
    return [(err as Error).message];
  } finally {
    doc.dispose();
    validator.dispose();
    schema.dispose();
  }
}

function camt054(entries: Array<{ ref: string; amount: string; currency?: string; direction: 'DBIT' | 'CRDT'; returnCode?: string }>): string {
  const ntry = entries.map((e) => `
      <Ntry>
        <Amt Ccy="${e.currency ?? 'EUR'}">${e.amount}</Amt>
        <CdtDbtInd>${e.direction}</CdtDbtInd>
        <Sts>BOOK</Sts>
        <BookgDt><Dt>2026-11-24</Dt></BookgDt>
        <BkTxCd><Prtry><Cd>TRF</Cd></Prtry></BkTxCd>
        <NtryDtls><TxDtls>
          <Refs><EndToEndId>${e.ref}</EndToEndId></Refs>
          ${e.returnCode ? `<RtrInf><Rsn><Cd>${e.returnCode}</Cd></Rsn></RtrInf>` : ''}
        </TxDtls></NtryDtls>
      </Ntry>`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.02">
  <BkToCstmrDbtCdtNtfctn>
    <GrpHdr><MsgId>BANK-1</MsgId><CreDtTm>2026-11-24T18:00:00</CreDtTm></GrpHdr>
    <Ntfctn>
      <Id>N1</Id><CreDtTm>2026-11-24T18:00:00</CreDtTm>
      <Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>${ntry}
    </Ntfctn>
  </BkToCstmrDbtCdtNtfctn>
</Document>`;
}

const DAY = 86_400_000;

eachDatabase('payout bank files', (dialect) => {
  // Three days ago: the files of the days the payouts are made on are over by the end, for the command line (which
  // runs on the real time) too.
  const clock = new ManualClock(new Date(Date.now() - 3 * DAY));
  const { t, m } = withMerchantApp(dialect, { env: OPERATOR, clock });
  const live = (method: string, url: string, body?: unknown) => t.api(m.liveKey, method, url, body);
  const admin = (method: string, url: string, body?: string, contentType = 'application/xml') =>
    t.api(ADMIN_TOKEN, method, url, body, body === undefined ? {} : { 'content-type': contentType });
  const dayOf = (d: Date) => d.toISOString().slice(0, 10);
  /** The UTC day the payouts of `before` are made on. */
  let payoutDay = '';
  const today = () => payoutDay;
  const available = async (currency: string) =>
    ((await live('GET', '/api/v1/balance')).body.available as Array<{ currency: string; amount: number }>).find((b) => b.currency === currency)?.amount ?? 0;
  const payouts: Record<string, { id: string; amount: number }> = {};

  before(async () => {
    payoutDay = dayOf(clock.now());
    for (const [currency, iban, holder] of [['EUR', EUR_IBAN, 'Fare Ute & Fils <SARL>'], ['XPF', XPF_IBAN, 'Tiare, "Papeete"']] as const) {
      assert.equal((await live('POST', '/api/v1/bank-accounts', { iban, holderName: holder, currency, ...(currency === 'EUR' ? { bic: 'BNPAFRPP' } : {}) })).status, 201);
      assert.equal((await t.admin('POST', `/admin/v1/merchants/${m.id}/adjustments`, { mode: 'live', currency, amount: 50_000, reason: 'sales' })).status, 201);
    }
    for (const [name, currency, amount] of [['first', 'EUR', 12_345], ['second', 'EUR', 600], ['xpf', 'XPF', 5_000]] as const) {
      const res = await live('POST', '/api/v1/payouts', { currency, amount, description: `Payout ${name}` });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.status, 'pending');
      payouts[name] = { id: res.body.id, amount };
      clock.advance(1000);
    }
    // A test-mode payout never goes to the bank's file.
    await t.api(m.testKey, 'POST', '/api/v1/bank-accounts', { iban: EUR_IBAN, holderName: 'Test', currency: 'EUR' });
    await t.admin('POST', `/admin/v1/merchants/${m.id}/adjustments`, { mode: 'test', currency: 'EUR', amount: 700, reason: 'test' });
    assert.equal((await t.api(m.testKey, 'POST', '/api/v1/payouts', { currency: 'EUR' })).status, 201);
  });

  it("the day's EUR payouts as a pain.001.001.03 file the ISO 20022 schema accepts, once the day is over; they are in transit from then on", async () => {
    const early = await admin('GET', `/admin/v1/payouts/transfers.xml?date=${today()}`);
    assert.equal(early.status, 422, 'the day is not over: more payouts could come');
    assert.equal(early.body.code, 'BUSINESS_RULE_VIOLATION');
    assert.equal((await live('GET', `/api/v1/payouts/${payouts.first!.id}`)).body.status, 'pending', 'nothing changed');
    clock.advance(DAY);
    const res = await admin('GET', `/admin/v1/payouts/transfers.xml?date=${today()}`);
    assert.equal(res.status, 200, String(res.body));
    assert.match(String(res.headers['content-type']), /^application\/xml/);
    assert.match(String(res.headers['content-disposition']), /motu-transfers-\d{4}-\d{2}-\d{2}\.xml/);
    const xml = String(res.body);
    assert.deepEqual(schemaErrors(xml), []);
    const doc = XmlDocument.fromString(xml);
    const ns = { p: 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.03' };
    const value = (xpath: string) => doc.find(xpath, ns).map((n) => n.content);
    try {
      assert.deepEqual(value('//p:GrpHdr/p:NbOfTxs'), ['2']);
      assert.deepEqual(value('//p:GrpHdr/p:CtrlSum'), ['129.45']);
      assert.deepEqual(value('//p:PmtInf/p:CtrlSum'), ['129.45']);
      assert.deepEqual(value('//p:DbtrAcct/p:Id/p:IBAN'), ['DE89370400440532013000']);
      assert.deepEqual(value('//p:DbtrAgt/p:FinInstnId/p:BIC'), ['COBADEFFXXX']);
      assert.deepEqual(value('//p:CdtTrfTxInf/p:PmtId/p:EndToEndId'), [payouts.first!.id, payouts.second!.id]);
      assert.deepEqual(value('//p:CdtTrfTxInf/p:Amt/p:InstdAmt'), ['123.45', '6.00']);
      assert.deepEqual(value('//p:CdtTrfTxInf/p:CdtrAcct/p:Id/p:IBAN'), [EUR_IBAN, EUR_IBAN]);
      assert.deepEqual(value('//p:CdtTrfTxInf/p:Cdtr/p:Nm'), ['Fare Ute & Fils <SARL>', 'Fare Ute & Fils <SARL>'], 'escaped in the file, read back whole');
      assert.deepEqual(value('//p:CdtTrfTxInf/p:RmtInf/p:Ustrd'), ['Payout first', 'Payout second']);
    } finally {
      doc.dispose();
    }
    for (const name of ['first', 'second']) {
      assert.equal((await live('GET', `/api/v1/payouts/${payouts[name]!.id}`)).body.status, 'in_transit');
      const cancel = await live('POST', `/api/v1/payouts/${payouts[name]!.id}/cancel`, {});
      assert.equal(cancel.body.code, 'PAYOUT_NOT_CANCELLABLE', 'at the bank: no longer cancellable');
    }
    const again = await admin('GET', `/admin/v1/payouts/transfers.xml?date=${today()}`);
    const messageId = (x: string) => /<MsgId>([^<]+)<\/MsgId>/.exec(x)![1];
    assert.equal(messageId(String(again.body)), messageId(xml), 'the same file again, under the same message id');
    assert.equal((await admin('GET', '/admin/v1/payouts/transfers.xml?date=2020-01-01')).status, 404);
  });

  it("the day's XPF payouts as CSV, with the account to pay", async () => {
    const res = await admin('GET', `/admin/v1/payouts/transfers.csv?date=${today()}`);
    assert.equal(res.status, 200);
    const lines = String(res.body).trim().split('\r\n');
    assert.deepEqual(lines, [
      'payoutId,merchantId,amount,currency,holderName,iban,bic,description',
      `${payouts.xpf!.id},${m.id},5000,XPF,"Tiare, ""Papeete""",${XPF_IBAN},,Payout xpf`,
    ]);
    assert.equal((await live('GET', `/api/v1/payouts/${payouts.xpf!.id}`)).body.status, 'in_transit');
  });

  it('imports camt.054: a booked debit is paid, a return is failed and credited back, unknown and mismatched entries are reported, twice changes nothing', async () => {
    const before = await available('EUR');
    const file = camt054([
      { ref: payouts.first!.id, amount: '123.45', direction: 'DBIT' },
      { ref: payouts.second!.id, amount: '6.00', direction: 'CRDT', returnCode: 'AC04' },
      { ref: payouts.xpf!.id, amount: '4999', currency: 'XPF', direction: 'DBIT' },
      { ref: 'ORDER-17', amount: '10.00', direction: 'DBIT' },
    ]);
    const res = await admin('POST', '/admin/v1/payouts/camt054', file);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, {
      paid: [payouts.first!.id],
      failed: [{ payoutId: payouts.second!.id, failureReason: 'account_closed', code: 'AC04' }],
      skipped: [],
      mismatched: [{ payoutId: payouts.xpf!.id, amount: '4999', currency: 'XPF' }],
      unknown: [{ endToEndId: 'ORDER-17', amount: '10.00', currency: 'EUR' }],
    });
    const get = async (name: string) => (await live('GET', `/api/v1/payouts/${payouts[name]!.id}`)).body;
    assert.equal((await get('first')).status, 'paid');
    assert.deepEqual([(await get('second')).status, (await get('second')).failureReason], ['failed', 'account_closed']);
    assert.equal((await get('xpf')).status, 'in_transit', 'a mismatched amount is not applied');
    assert.equal(await available('EUR'), before + 600, 'the returned transfer is credited back');
    const events = (await eventsOfType(t, 'payout.completed')).length + (await eventsOfType(t, 'payout.failed')).length;

    const twice = await admin('POST', '/admin/v1/payouts/camt054', file);
    assert.deepEqual(twice.body.skipped, [{ payoutId: payouts.first!.id, status: 'paid' }, { payoutId: payouts.second!.id, status: 'failed' }]);
    assert.deepEqual([twice.body.paid, twice.body.failed], [[], []]);
    assert.equal(await available('EUR'), before + 600);
    assert.equal((await eventsOfType(t, 'payout.completed')).length + (await eventsOfType(t, 'payout.failed')).length, events);
    assert.deepEqual((await verifyLedger(t.db)).differences, []);
  });

  it('`motu payouts transfers-xml|transfers-csv|import-camt` do the same from the command line', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, MOTU_DATA_DIR: t.dataDir, LOG_LEVEL: 'warn', ...OPERATOR };
    for (const name of ['DATABASE_URL', 'MOTU_ADMIN_TOKEN', 'MOTU_SEED_DEMO']) delete env[name];
    if (t.databaseUrl) env.DATABASE_URL = t.databaseUrl;
    const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/start/main.ts'), ...args], { cwd: ROOT, env, encoding: 'utf8' });
    const third = await live('POST', '/api/v1/payouts', { currency: 'EUR', amount: 1_001 });
    assert.equal(third.status, 201);
    const xml = cli('payouts', 'transfers-xml', '--date', dayOf(clock.now()));
    assert.equal(xml.status, 0, xml.stdout + xml.stderr);
    assert.deepEqual(schemaErrors(xml.stdout), []);
    assert.match(xml.stdout, new RegExp(`<EndToEndId>${third.body.id}</EndToEndId>`));
    const csv = cli('payouts', 'transfers-csv', '--date', today());
    assert.equal(csv.status, 0, csv.stderr);
    assert.match(csv.stdout, new RegExp(`^${payouts.xpf!.id},`, 'm'));
    const file = path.join(t.dataDir, 'answers.xml');
    writeFileSync(file, camt054([{ ref: payouts.xpf!.id, amount: '5000', currency: 'XPF', direction: 'CRDT', returnCode: 'AC01' }]));
    const run = cli('payouts', 'import-camt', file);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.deepEqual(JSON.parse(run.stdout).failed, [{ payoutId: payouts.xpf!.id, failureReason: 'no_account', code: 'AC01' }]);
    assert.equal(cli('payouts', 'import-camt', path.join(t.dataDir, 'missing.xml')).status, 1);
    assert.equal(cli('payouts', 'transfers-xml', '--date', 'yesterday').status, 1);
  });

  it('bad input is refused and changes nothing; the routes need the admin token; no operator account, no SEPA file', async () => {
    for (const date of ['', '2026-13-01', '2026-02-30', '24/11/2026']) {
      assert.equal((await admin('GET', `/admin/v1/payouts/transfers.xml?date=${encodeURIComponent(date)}`)).status, 400, date);
    }
    assert.equal((await admin('GET', '/admin/v1/payouts/transfers.xml')).status, 400);
    for (const body of ['<Document', '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"/>', 'not xml at all']) {
      const res = await admin('POST', '/admin/v1/payouts/camt054', body);
      assert.equal(res.status, 400, body);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
    }
    assert.equal((await admin('POST', '/admin/v1/payouts/camt054', '{"a":1}', 'application/json')).status, 400);
    assert.equal((await t.api(undefined, 'GET', `/admin/v1/payouts/transfers.xml?date=${today()}`)).status, 401);
    assert.equal((await t.api(m.liveKey, 'POST', '/admin/v1/payouts/camt054', camt054([]), { 'content-type': 'application/xml' })).status, 401);
    assert.throws(() => parseConfig({ MOTU_OPERATOR_IBAN: 'FR7630006000010000000000153', MOTU_OPERATOR_NAME: 'X' }), /MOTU_OPERATOR_IBAN/);
    assert.throws(() => parseConfig({ MOTU_OPERATOR_IBAN: EUR_IBAN }), /MOTU_OPERATOR_NAME/);
    assert.throws(() => parseConfig({ MOTU_OPERATOR_IBAN: EUR_IBAN, MOTU_OPERATOR_NAME: 'X', MOTU_OPERATOR_BIC: 'NOPE' }), /MOTU_OPERATOR_BIC/);
    assert.equal(parseConfig({}).operatorAccount, undefined);
  });
});
