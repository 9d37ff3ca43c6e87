// The operator's side of live payouts at the bank: the day's transfer files out (SEPA XML for EUR, CSV for XPF,
// which SEPA does not carry), and the bank's camt.054 answers in. A file is of a UTC day that is over, so it is
// complete. Producing it marks its pending payouts `in_transit`: they are at the bank now, and a merchant can no longer
// cancel them (a cancelled payout the bank then pays would be paid twice). The same day's file can be fetched again:
// it lists the same payouts (those not answered yet) under the same message id, so a bank refuses a second submission
// as a duplicate.
import { createHash } from 'node:crypto';
import type { OperatorAccount } from '../../../config.js';
import type { Database } from '../../../db/database.js';
import type { Clock } from '../../../shared/clock.js';
import { AppError, invalidField } from '../../../shared/errors.js';
import type { BankAccountsService } from '../../bank-accounts/bank-accounts.service.js';
import type { PayoutsService } from '../payouts.service.js';
import { minorUnits } from './amounts.js';
import { readCamt054 } from './camt054.js';
import { sepaCreditTransfers, type Transfer } from './pain001.js';

export interface CamtImport {
  paid: string[];
  failed: Array<{ payoutId: string; failureReason: string; code: string }>;
  /** Payouts answered already (paid, failed or cancelled): left as they are. */
  skipped: Array<{ payoutId: string; status: string }>;
  /** Entries whose amount or currency is not the payout's: not applied. */
  mismatched: Array<{ payoutId: string; amount: string; currency: string }>;
  /** Entries naming no payout of Motu's. */
  unknown: Array<{ endToEndId: string | null; amount: string; currency: string }>;
}

function day(text: string): { from: string; to: string } {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(Date.parse(`${text}T00:00:00Z`)) || new Date(`${text}T00:00:00Z`).toISOString().slice(0, 10) !== text) {
    throw invalidField('date', 'must be a day, YYYY-MM-DD');
  }
  const from = new Date(`${text}T00:00:00.000Z`);
  return { from: from.toISOString(), to: new Date(from.getTime() + 86_400_000).toISOString() };
}

export class BankFilesService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly bankAccounts: BankAccountsService,
    private readonly payouts: PayoutsService,
    private readonly operator: OperatorAccount | undefined,
  ) {}

  /** GET /admin/v1/payouts/transfers.xml: the day's EUR payouts as one pain.001.001.03 file. */
  async sepaFile(date: string): Promise<{ filename: string; xml: string; count: number }> {
    if (!this.operator) {
      throw new AppError('OPERATOR_ACCOUNT_NOT_CONFIGURED', "No transfer file without the operator's account: set MOTU_OPERATOR_NAME and MOTU_OPERATOR_IBAN (and MOTU_OPERATOR_BIC)");
    }
    const rows = await this.rows(date, 'EUR');
    if (rows.length === 0) throw new AppError('NOT_FOUND', `No live EUR payout to send for ${date}`, { date });
    const ids = rows.map((r) => r.id);
    const messageId = `MOTU-${date.replace(/-/g, '')}-${createHash('sha256').update(ids.join(',')).digest('hex').slice(0, 16)}`;
    const transfers: Transfer[] = rows.map((r) => ({
      payoutId: r.id, amount: Number(r.amount), holderName: r.holder_name, iban: r.iban, bic: r.bic, remittance: r.description ?? `Motu payout ${r.id}`,
    }));
    const xml = sepaCreditTransfers({ messageId, createdAt: this.clock.now(), executionDate: date, operator: this.operator, transfers });
    return { filename: `motu-transfers-${date}.xml`, xml, count: rows.length };
  }

  /** GET /admin/v1/payouts/transfers.csv: the day's XPF payouts, for a transfer outside SEPA. */
  async xpfList(date: string) {
    const rows = await this.rows(date, 'XPF');
    return { filename: `motu-transfers-${date}-xpf.csv`, rows };
  }

  /** The live payouts of a currency created on `date` (UTC) and not answered yet, marked in_transit, with their IBANs. */
  private async rows(date: string, currency: 'EUR' | 'XPF') {
    const { from, to } = day(date);
    // Only a day that is over: its list of payouts can no longer grow, so its file is complete and the same at every
    // download. (A file of a day still going on would leave out the payouts made later that day, and a second file of
    // it would carry the first one's payouts again: paid twice by a bank given both.)
    if (to > this.clock.now().toISOString()) {
      throw new AppError('BUSINESS_RULE_VIOLATION', `The day ${date} is not over yet (UTC): its transfer file can be made from ${to}`, { date, availableFrom: to });
    }
    // One transaction, and the file is exactly what it commits in transit. The pending payouts are marked by one
    // conditional update, then the day's in-transit payouts are read back: a cancel that committed first left its
    // payout `cancelled` (no longer pending, so neither marked nor read), and one that comes after finds it in transit
    // and is refused. Selecting first and writing every selected row put a payout cancelled in between (credited back
    // to the merchant) in the file as well: paid twice.
    const rows = await this.db.transaction(async (trx) => {
      await trx.updateTable('payouts').set({ status: 'in_transit', updated_at: this.clock.now().toISOString() })
        .where('mode', '=', 'live').where('currency', '=', currency).where('status', '=', 'pending')
        .where('created_at', '>=', from).where('created_at', '<', to).execute();
      return trx.selectFrom('payouts as p').innerJoin('bank_accounts as b', 'b.id', 'p.bank_account_id')
        .select(['p.id', 'p.merchant_id', 'p.amount', 'p.currency', 'p.description', 'p.bank_account_id', 'b.holder_name', 'b.bic'])
        .where('p.mode', '=', 'live').where('p.currency', '=', currency).where('p.status', '=', 'in_transit')
        .where('p.created_at', '>=', from).where('p.created_at', '<', to).orderBy('p.created_at').orderBy('p.id').execute();
    });
    const out = [];
    for (const r of rows) out.push({ ...r, iban: (await this.bankAccounts.ibanOf(r.bank_account_id)) ?? '' });
    return out;
  }

  /** `motu payouts import-camt FILE` and POST /admin/v1/payouts/camt054: the bank's answers recorded, once each. */
  async importCamt054(xml: string): Promise<CamtImport> {
    const entries = readCamt054(xml);
    const result: CamtImport = { paid: [], failed: [], skipped: [], mismatched: [], unknown: [] };
    for (const entry of entries) {
      const payout = entry.endToEndId
        ? await this.db.kysely.selectFrom('payouts').select(['id', 'amount', 'currency', 'status']).where('id', '=', entry.endToEndId).executeTakeFirst()
        : undefined;
      if (!payout) {
        result.unknown.push({ endToEndId: entry.endToEndId, amount: entry.amount, currency: entry.currency });
        continue;
      }
      const currency = payout.currency as 'EUR' | 'XPF';
      if (entry.currency !== currency || minorUnits(entry.amount, currency) !== Number(payout.amount)) {
        result.mismatched.push({ payoutId: payout.id, amount: entry.amount, currency: entry.currency });
        continue;
      }
      if (payout.status !== 'pending' && payout.status !== 'in_transit') {
        result.skipped.push({ payoutId: payout.id, status: payout.status });
        continue;
      }
      try {
        if (entry.outcome.paid) {
          await this.payouts.recordAnswer(payout.id, { paid: true });
          result.paid.push(payout.id);
        } else {
          await this.payouts.recordAnswer(payout.id, { paid: false, reason: entry.outcome.reason, message: `Returned by the bank (${entry.outcome.code})` });
          result.failed.push({ payoutId: payout.id, failureReason: entry.outcome.reason, code: entry.outcome.code });
        }
      } catch (err) {
        // Answered meanwhile (another import, the admin API): reported as skipped.
        if (!(err instanceof AppError) || err.code !== 'PAYOUT_NOT_PENDING') throw err;
        result.skipped.push({ payoutId: payout.id, status: 'answered' });
      }
    }
    return result;
  }
}
