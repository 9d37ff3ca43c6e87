// `motu ledger verify`: proves the ledger is whole, with the database doing the sums (the process holds a few rows
// of figures per merchant, never the transactions, so a million of them verify in the same memory as ten).
//   1. every posting balances: its lines sum to zero;
//   2. every balance transaction has its one entry posting, whose merchant line is the transaction's amount;
//   3. every merchant's balance (per mode and currency, pending and available) equals the sum of its transactions;
//   4. every payment captured since the ledger began: its `payment` transactions sum to its captured amount and its
//      `refund` transactions to minus its refunded amount, and its `dispute` and `dispute_reversal` ones to minus what its
//      open and lost chargebacks took back (its disputed amount);
//   5. every split payment: what its platform's transactions put in `platform_clearing` its sellers' took out (the lines
//      of that account sum to zero per payment).
//   6. every running balance (ledger_balances, kept by each posting so that reading a balance does not sum the books)
//      equals the sum of its lines, per merchant, mode, store, currency and account.
//   7. the home's capture volume (capture_volume, kept by each capture so that the back-office's home does not sum the
//      payments) equals what the captured payments add up to, per merchant, mode, UTC hour, store and currency: not
//      the books, but a figure the merchant reads, kept the same way, and checked with them.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import type { DB } from '../../db/schema.js';

export interface Difference {
  check: 'posting' | 'transaction' | 'balance' | 'payment' | 'split' | 'running_balance' | 'capture_volume';
  id: string;
  message: string;
}

export interface VerifyResult {
  ok: boolean;
  counted: { postings: number; transactions: number; balances: number; payments: number };
  /** How many differences each check found; the first `listed` of them are in `differences`. */
  found: Record<Difference['check'], number>;
  differences: Difference[];
}

const LISTED = 100;

const n = (v: unknown) => Number(v ?? 0);

/** Every check reads one snapshot: payments, settlements and payouts going on meanwhile never show as differences. */
export async function verifyLedger(db: Database): Promise<VerifyResult> {
  return db.snapshot((k) => verifyOn(k));
}

async function verifyOn(k: Kysely<DB>): Promise<VerifyResult> {
  const differences: Difference[] = [];
  const found = { posting: 0, transaction: 0, balance: 0, payment: 0, split: 0, running_balance: 0, capture_volume: 0 };
  const report = (d: Difference) => {
    found[d.check] += 1;
    if (differences.length < LISTED) differences.push(d);
  };

  // 1. Postings that do not balance.
  const unbalanced = await sql<{ posting_id: string; total: number }>`
    select posting_id, cast(sum(amount) as bigint) as total from ledger_lines group by posting_id having sum(amount) <> 0`.execute(k);
  for (const r of unbalanced.rows) report({ check: 'posting', id: r.posting_id, message: `lines sum to ${n(r.total)}, not 0` });

  // 2. Transactions without their entry, or whose entry moves the merchant by another amount.
  const entries = await sql<{ id: string; amount: number; moved: number | null; entries: number }>`
    select t.id, t.amount, m.moved, coalesce(m.entries, 0) as entries
    from balance_transactions t
    left join (
      select p.transaction_id, count(distinct p.id) as entries, cast(sum(l.amount) as bigint) as moved
      from ledger_postings p join ledger_lines l on l.posting_id = p.id
      where p.kind = 'entry' and l.account in ('merchant_pending', 'merchant_available')
      group by p.transaction_id
    ) m on m.transaction_id = t.id
    where m.transaction_id is null or m.entries <> 1 or m.moved <> t.amount`.execute(k);
  for (const r of entries.rows) {
    report({ check: 'transaction', id: r.id, message: n(r.entries) !== 1 ? `has ${n(r.entries)} entry postings, not 1` : `its entry moves ${n(r.moved)}, not ${n(r.amount)}` });
  }

  // The merchant accounts' lines summed per merchant, mode, store, currency and account, read once for checks 3 and 6
  // (a few rows per account, whatever the number of lines): no index orders the lines by merchant (migration 0058),
  // so each grouping is a pass over the lines and a sort.
  const lineSums = await sql<{ merchant_id: string; mode: string; store_key: string; currency: string; account: string; total: number }>`
    select merchant_id, mode, coalesce(store_id, '') as store_key, currency, account, cast(sum(amount) as bigint) as total from ledger_lines
    where account in ('merchant_pending', 'merchant_available') group by merchant_id, mode, coalesce(store_id, ''), currency, account`.execute(k);

  // 3. Balances: the merchant accounts' lines against the transactions, per merchant, mode and currency.
  const transactions = await sql<{ merchant_id: string; mode: string; currency: string; pending: number; total: number }>`
    select t.merchant_id, t.mode, t.currency,
      case when t.pending = 1 and not exists (select 1 from ledger_postings r where r.transaction_id = t.id and r.kind = 'release') then 1 else 0 end as pending,
      cast(sum(t.amount) as bigint) as total
    from balance_transactions t group by t.merchant_id, t.mode, t.currency, 4`.execute(k);
  const balances = new Map<string, { ledger: number; transactions: number }>();
  const at = (key: string) => balances.get(key) ?? balances.set(key, { ledger: 0, transactions: 0 }).get(key)!;
  for (const r of lineSums.rows) at(`${r.merchant_id} ${r.mode} ${r.currency} ${r.account === 'merchant_pending' ? 'pending' : 'available'}`).ledger += n(r.total);
  for (const r of transactions.rows) at(`${r.merchant_id} ${r.mode} ${r.currency} ${n(r.pending) === 1 ? 'pending' : 'available'}`).transactions += n(r.total);
  for (const [key, b] of balances) {
    if (b.ledger !== b.transactions) report({ check: 'balance', id: key, message: `balance ${b.ledger}, its transactions sum to ${b.transactions}` });
  }

  // 4. Payments captured since the ledger began, against their transactions.
  const started = await k.selectFrom('settings').select('value').where('name', '=', 'ledger.started_at').executeTakeFirst();
  const disputedSum = sql`sum(case when t.type in ('dispute', 'dispute_reversal') then -t.amount else 0 end)`;
  const payments = await sql<{ id: string; captured_amount: number; refunded_amount: number; disputed_amount: number; paid: number; refunded: number; disputed: number }>`
    select p.id, p.captured_amount, p.refunded_amount, p.disputed_amount,
      coalesce(cast(sum(case when t.type = 'payment' then t.amount else 0 end) as bigint), 0) as paid,
      coalesce(cast(sum(case when t.type = 'refund' then -t.amount else 0 end) as bigint), 0) as refunded,
      coalesce(cast(${disputedSum} as bigint), 0) as disputed
    from payments p left join balance_transactions t on t.payment_id = p.id
    where p.captured_at is not null and p.captured_at >= ${started?.value ?? ''}
    group by p.id, p.captured_amount, p.refunded_amount, p.disputed_amount
    having coalesce(sum(case when t.type = 'payment' then t.amount else 0 end), 0) <> p.captured_amount
      or coalesce(sum(case when t.type = 'refund' then -t.amount else 0 end), 0) <> p.refunded_amount
      or coalesce(${disputedSum}, 0) <> p.disputed_amount`.execute(k);
  for (const r of payments.rows) {
    report({
      check: 'payment', id: r.id,
      message: `captured ${n(r.captured_amount)}, refunded ${n(r.refunded_amount)} and disputed ${n(r.disputed_amount)}; `
        + `its transactions: paid ${n(r.paid)}, refunded ${n(r.refunded)}, disputed ${n(r.disputed)}`,
    });
  }

  // 5. Split payments: the platform's side and its sellers' of `platform_clearing`.
  const splits = await sql<{ payment_id: string; total: number }>`
    select t.payment_id, cast(sum(l.amount) as bigint) as total
    from ledger_lines l join ledger_postings p on p.id = l.posting_id join balance_transactions t on t.id = p.transaction_id
    where l.account = 'platform_clearing' and p.kind = 'entry'
    group by t.payment_id having sum(l.amount) <> 0`.execute(k);
  for (const r of splits.rows) report({ check: 'split', id: r.payment_id ?? '', message: `its platform and sellers' transactions differ by ${n(r.total)}` });

  // 6. Running balances against the lines they stand for (lineSums, above).
  const kept = await sql<{ merchant_id: string; mode: string; store_key: string; currency: string; pending: number | null; available: number | null }>`
    select merchant_id, mode, store_key, currency, cast(sum(pending) as bigint) as pending, cast(sum(available) as bigint) as available
    from ledger_balances group by merchant_id, mode, store_key, currency`.execute(k);
  const running = new Map<string, { lines: [number | null, number | null]; kept: [number | null, number | null] }>();
  const entry = (r: { merchant_id: string; mode: string; store_key: string; currency: string }) => {
    const key = `${r.merchant_id} ${r.mode} ${r.store_key || '-'} ${r.currency}`;
    return running.get(key) ?? running.set(key, { lines: [null, null], kept: [null, null] }).get(key)!;
  };
  const orNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  for (const r of lineSums.rows) entry(r).lines[r.account === 'merchant_pending' ? 0 : 1] = n(r.total);
  for (const r of kept.rows) entry(r).kept = [orNull(r.pending), orNull(r.available)];
  for (const [key, b] of running) {
    if (b.lines[0] !== b.kept[0] || b.lines[1] !== b.kept[1]) {
      report({
        check: 'running_balance', id: key,
        message: `running balance pending ${b.kept[0] ?? 'none'}, available ${b.kept[1] ?? 'none'}; its lines sum to pending ${b.lines[0] ?? 'none'}, available ${b.lines[1] ?? 'none'}`,
      });
    }
  }

  // 7. The capture volume against the captured payments: the hours where the two differ, found by the database (one
  // grouping of both, side by side: a union, not a join, so each is read once), so the process holds only those.
  const volume = await sql<{ merchant_id: string; mode: string; hour: string; store_key: string; currency: string; count: number; amount: number; kept_count: number; kept_amount: number }>`
    select merchant_id, mode, hour, store_key, currency,
      cast(sum(count) as bigint) as count, cast(sum(amount) as bigint) as amount,
      cast(sum(kept_count) as bigint) as kept_count, cast(sum(kept_amount) as bigint) as kept_amount
    from (
      select merchant_id, mode, substr(captured_at, 1, 13) as hour, coalesce(store_id, '') as store_key, currency,
        1 as count, captured_amount as amount, 0 as kept_count, 0 as kept_amount
      from payments where captured_at is not null
      union all
      select merchant_id, mode, hour, store_key, currency, 0, 0, count, amount from capture_volume
    ) both_sides
    group by merchant_id, mode, hour, store_key, currency
    having sum(count) <> sum(kept_count) or sum(amount) <> sum(kept_amount)`.execute(k);
  for (const r of volume.rows) {
    report({
      check: 'capture_volume', id: `${r.merchant_id} ${r.mode} ${r.hour} ${r.store_key || '-'} ${r.currency}`,
      message: `capture volume ${n(r.kept_count)} captures, ${n(r.kept_amount)}; the payments captured that hour: ${n(r.count)}, ${n(r.amount)}`,
    });
  }

  const count = async (table: 'ledger_postings' | 'balance_transactions') =>
    n((await k.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  const capturedPayments = await k.selectFrom('payments').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('captured_at', 'is not', null).where('captured_at', '>=', started?.value ?? '').executeTakeFirstOrThrow();
  return {
    ok: Object.values(found).every((v) => v === 0),
    counted: { postings: await count('ledger_postings'), transactions: await count('balance_transactions'), balances: balances.size, payments: n(capturedPayments.n) },
    found,
    differences,
  };
}
