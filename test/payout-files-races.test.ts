// A merchant cancels payouts while the operator builds the day's bank file: each payout ends either in the file (in
// transit, not credited back, no longer cancellable) or cancelled (credited back, not in the file), never both. Each
// row of the table fires 20 cancels and 20 builds of the file at once, on every database; on PostgreSQL they really run
// side by side. The rows have the race suite's shape ({name, setup, fire, invariant}).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { verifyLedger } from '../src/modules/ledger/verify.js';
import { ADMIN_TOKEN, eachDatabase, ManualClock } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';

const OPERATOR = { MOTU_OPERATOR_NAME: 'Motu Operator SAS', MOTU_OPERATOR_IBAN: 'DE89 3704 0044 0532 0130 00', MOTU_OPERATOR_BIC: 'COBADEFFXXX' };
const DAY = 86_400_000;
const RACERS = 20;

type Answer = { status: number; body: any };
type Api = (method: string, url: string, body?: unknown) => Promise<Answer>;

interface Race {
  name: string;
  /** Makes the objects the race is about; what it returns is handed to fire and invariant. */
  setup(live: Api): Promise<string[]>;
  /** Sends the conflicting requests at once. */
  fire(ids: string[], live: Api, admin: Api): Promise<{ files: Answer[]; cancels: Answer[] }>;
  /** What must hold whatever the order the database ran them in. */
  invariant(ids: string[], answers: { files: Answer[]; cancels: Answer[] }, live: Api): Promise<void>;
}

/** The payout ids a transfer file lists: the SEPA file's end-to-end ids, or the CSV's first column. */
function idsInFile(file: Answer): string[] {
  const text = String(file.body);
  if (text.startsWith('<?xml')) return [...text.matchAll(/<EndToEndId>([^<]+)<\/EndToEndId>/g)].map((m) => m[1]!);
  return text.trim().split('\r\n').slice(1).map((line) => line.split(',')[0]!);
}

eachDatabase('payout bank files against cancels', (dialect) => {
  const clock = new ManualClock(new Date(Date.now() - 10 * DAY));
  const { t, m } = withMerchantApp(dialect, { env: OPERATOR, clock });
  const live: Api = (method, url, body) => t.api(m.liveKey, method, url, body);
  const admin: Api = (method, url) => t.api(ADMIN_TOKEN, method, url);

  const racingFile = (currency: 'EUR' | 'XPF', iban: string, route: string): Race => ({
    name: `the ${currency} file (${route}) built while ${RACERS} of its payouts are cancelled`,
    async setup(api) {
      const accounts = (await api('GET', '/api/v1/bank-accounts')).body.data as Array<{ currency: string }>;
      if (!accounts.some((a) => a.currency === currency)) {
        assert.equal((await api('POST', '/api/v1/bank-accounts', { iban, holderName: 'Fare Ute', currency, bic: 'BNPAFRPP' })).status, 201);
      }
      assert.equal((await t.admin('POST', `/admin/v1/merchants/${m.id}/adjustments`, { mode: 'live', currency, amount: 100_000, reason: 'sales' })).status, 201);
      const ids: string[] = [];
      for (let i = 0; i < RACERS; i++) {
        const res = await api('POST', '/api/v1/payouts', { currency, amount: 100 + i });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        ids.push(res.body.id);
      }
      clock.advance(DAY); // the day of those payouts is over: its file can be made
      return ids;
    },
    async fire(ids, api, operator) {
      const date = new Date(clock.now().getTime() - DAY).toISOString().slice(0, 10);
      // Half the cancels go out at once; as each is answered, a build (the operator's retries, or two operators) and
      // a cancel of the other half go out together: builds run between cancels, and race the second half.
      const build = () => operator('GET', `/admin/v1/payouts/${route}?date=${date}`);
      const cancel = (id: string) => api('POST', `/api/v1/payouts/${id}/cancel`, {});
      const half = RACERS / 2;
      const first = ids.slice(0, half).map(cancel);
      const files: Array<Promise<Answer>> = [];
      const second = first.map((answered, i) => answered.then(() => {
        files.push(build());
        return cancel(ids[half + i]!);
      }));
      const cancels = await Promise.all([...first, ...second]);
      return { files: await Promise.all(files), cancels };
    },
    async invariant(ids, { files, cancels }, api) {
      const inFile = new Set<string>();
      for (const file of files) {
        // Every payout cancelled before a build: no SEPA file (404), or a CSV of its header alone.
        assert.ok(file.status === 200 || file.status === 404, String(file.body));
        if (file.status === 200) for (const id of idsInFile(file)) inFile.add(id);
      }
      for (const [i, id] of ids.entries()) {
        const payout = (await api('GET', `/api/v1/payouts/${id}`)).body;
        const credited = (await api('GET', `/api/v1/balance-transactions?type=payout_failure&sourceId=${id}`)).body.data as unknown[];
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
      const again = await admin('GET', `/admin/v1/payouts/${route}?date=${new Date(clock.now().getTime() - DAY).toISOString().slice(0, 10)}`);
      if (inFile.size > 0) assert.deepEqual(new Set(idsInFile(again)), inFile, 'the file fetched again lists every payout any build listed');
      assert.deepEqual((await verifyLedger(t.db)).differences, [], 'motu ledger verify finds nothing');
    },
  });

  const races: Race[] = [
    racingFile('EUR', 'FR7630006000010000000000152', 'transfers.xml'),
    racingFile('XPF', 'FR7630006000010000000000346', 'transfers.csv'),
  ];

  for (const race of races) {
    it(race.name, async () => {
      const ids = await race.setup(live);
      const answers = await race.fire(ids, live, admin);
      await race.invariant(ids, answers, live);
    });
  }
});
