// The bank-file rows of the race table (test/races.test.ts, docs/reliability.md "Races"): a merchant cancels payouts
// while the operator builds the day's bank file. Each payout ends either in the file (in transit, not credited back,
// no longer cancellable) or cancelled (credited back, not in the file), never both. The rows run on an app with the
// operator's account configured and a manual clock started ten days back (a day's file is made once the day is over).
import assert from 'node:assert/strict';
import { ADMIN_TOKEN } from '../support/harness.js';
import { race, type Answer, type RaceApp, type RaceRow } from '../support/races.js';

const OPERATOR = { MOTU_OPERATOR_NAME: 'Motu Operator SAS', MOTU_OPERATOR_IBAN: 'DE89 3704 0044 0532 0130 00', MOTU_OPERATOR_BIC: 'COBADEFFXXX' };
const DAY = 86_400_000;
const CLOCK = new Date(Date.now() - 10 * DAY);
const RACERS = 20;
const HALF = RACERS / 2;

/** The payout ids a transfer file lists: the SEPA file's end-to-end ids, or the CSV's first column. */
function idsInFile(file: Answer): string[] {
  const text = String(file.body);
  if (text.startsWith('<?xml')) return [...text.matchAll(/<EndToEndId>([^<]+)<\/EndToEndId>/g)].map((m) => m[1]!);
  return text.trim().split('\r\n').slice(1).map((line) => line.split(',')[0]!);
}

const live = ({ t, m }: RaceApp, method: string, url: string, body?: unknown) => t.api(m.liveKey, method, url, body);
/** The day whose file is built: the one before the clock's (the setup's day, now over). */
const fileDay = ({ clock }: RaceApp) => new Date(clock.now().getTime() - DAY).toISOString().slice(0, 10);

/**
 * 20 payouts of a day, then 30 requests: the first 10 cancel half of them at once; as each of those is answered, a
 * build of the file (requests 10 to 19: the operator's retries, or two operators) and a cancel of the other half
 * (requests 20 to 29) go out together, so builds run between cancels and race the second half.
 */
const racingFile = (currency: 'EUR' | 'XPF', iban: string, route: string) => race<{ ids: string[]; first: Array<Promise<Answer>> }>({
  name: `bank files: the ${currency} file (${route}) built 10 times while its ${RACERS} payouts are cancelled: each payout in the file or credited back, never both`,
  requests: RACERS + HALF,
  env: OPERATOR,
  clock: CLOCK,
  async setup(app) {
    const { t, m, clock } = app;
    const accounts = (await live(app, 'GET', '/api/v1/bank-accounts')).body.data as Array<{ currency: string }>;
    if (!accounts.some((a) => a.currency === currency)) {
      assert.equal((await live(app, 'POST', '/api/v1/bank-accounts', { iban, holderName: 'Fare Ute', currency, bic: 'BNPAFRPP' })).status, 201);
    }
    assert.equal((await t.admin('POST', `/admin/v1/merchants/${m.id}/adjustments`, { mode: 'live', currency, amount: 100_000, reason: 'sales' })).status, 201);
    const ids: string[] = [];
    for (let i = 0; i < RACERS; i++) {
      const res = await live(app, 'POST', '/api/v1/payouts', { currency, amount: 100 + i });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      ids.push(res.body.id);
    }
    clock.advance(DAY); // the day of those payouts is over: its file can be made
    return { ids, first: [] };
  },
  fire(app, context, i) {
    const cancel = (id: string) => live(app, 'POST', `/api/v1/payouts/${id}/cancel`, {});
    if (i < HALF) return (context.first[i] = cancel(context.ids[i]!));
    const answered = context.first[i % HALF]!;
    if (i < RACERS) return answered.then(() => app.t.api(ADMIN_TOKEN, 'GET', `/admin/v1/payouts/${route}?date=${fileDay(app)}`));
    return answered.then(() => cancel(context.ids[i - HALF]!));
  },
  async invariant(app, { ids }, answers) {
    const files = answers.slice(HALF, RACERS);
    const cancels = [...answers.slice(0, HALF), ...answers.slice(RACERS)]; // cancels[k] is ids[k]'s
    const inFile = new Set<string>();
    for (const file of files) {
      // Every payout cancelled before a build: no SEPA file (404), or a CSV of its header alone.
      assert.ok(file.status === 200 || file.status === 404, String(file.body));
      if (file.status === 200) for (const id of idsInFile(file)) inFile.add(id);
    }
    for (const [i, id] of ids.entries()) {
      const payout = (await live(app, 'GET', `/api/v1/payouts/${id}`)).body;
      const credited = (await live(app, 'GET', `/api/v1/balance-transactions?type=payout_failure&sourceId=${id}`)).body.data as unknown[];
      if (inFile.has(id)) {
        assert.equal(payout.status, 'in_transit', `${id} is in the file, so at the bank`);
        assert.equal(cancels[i]!.status, 422, `${id} is in the file: its cancel must be refused`);
        assert.equal(cancels[i]!.body.code, 'PAYOUT_NOT_CANCELLABLE');
        assert.equal(credited.length, 0, `${id} is in the file: never credited back`);
      } else {
        assert.equal(payout.status, 'cancelled', `${id} is not in the file: it was cancelled`);
        assert.equal(cancels[i]!.status, 200, JSON.stringify(cancels[i]!.body));
        assert.equal(credited.length, 1, `${id} was cancelled: credited back once`);
      }
    }
    const again = await app.t.api(ADMIN_TOKEN, 'GET', `/admin/v1/payouts/${route}?date=${fileDay(app)}`);
    if (inFile.size > 0) assert.deepEqual(new Set(idsInFile(again)), inFile, 'the file fetched again lists every payout any build listed');
  },
});

/** The bank-file rows of the race table (test/races.test.ts). */
export const payoutFileRaces: RaceRow[] = [
  racingFile('EUR', 'FR7630006000010000000000152', 'transfers.xml'),
  racingFile('XPF', 'FR7630006000010000000000346', 'transfers.csv'),
];
