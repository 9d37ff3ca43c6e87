// The back-office's home: the balance, the volume captured over the last 30 days (one bar a day in the merchant's
// time zone) and the latest payments. The volume is summed by the database per UTC hour (at most 744 rows, whatever
// the merchant's volume), then the hours are put in the merchant's local days here: a zone whose offset is not a
// whole number of hours (India, Nepal) sees the half hour at a day's edge on the day before.
import { sql } from 'kysely';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { isCurrency, toEurCents } from '../../shared/money.js';
import type { BalanceService } from '../ledger/balance.service.js';
import type { Owner } from '../merchants/principal.js';
import { ownedBy } from '../merchants/scope.js';
import type { PaymentsService } from '../payments/payments.service.js';

export const VOLUME_DAYS = 30;

export interface VolumeDay {
  /** YYYY-MM-DD in the merchant's time zone. */
  day: string;
  count: number;
  /** The EUR value of what was captured that day, in cents (XPF converted at the peg, per currency and hour). */
  amountEur: number;
}

export class HomeService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly balance: BalanceService,
    private readonly payments: PaymentsService,
  ) {}

  async home(owner: Owner, timeZone: string) {
    const [balance, volume, recent] = await Promise.all([
      this.balance.balance(owner),
      this.volume(owner, timeZone),
      this.payments.list(owner, { limit: 10 }),
    ]);
    return { balance, volume, recentPayments: recent.data };
  }

  async volume(owner: Owner, timeZone: string): Promise<VolumeDay[]> {
    const now = this.clock.now();
    const dayOf = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    const days: VolumeDay[] = [];
    for (let i = VOLUME_DAYS - 1; i >= 0; i--) {
      const day = dayOf.format(new Date(now.getTime() - i * 86_400_000));
      if (days.at(-1)?.day !== day) days.push({ day, count: 0, amountEur: 0 });
    }
    const since = new Date(now.getTime() - (VOLUME_DAYS + 1) * 86_400_000).toISOString();
    const hours = await this.db.kysely.selectFrom('payments')
      .select([sql<string>`substr(captured_at, 1, 13)`.as('hour'), 'currency', sql<number>`count(*)`.as('count'), sql<number>`cast(sum(captured_amount) as bigint)`.as('amount')])
      .where(ownedBy(owner, { store: true }))
      .where('captured_at', '>=', since)
      .groupBy([sql`substr(captured_at, 1, 13)`, 'currency'])
      .execute();
    const byDay = new Map(days.map((d) => [d.day, d]));
    for (const row of hours) {
      const day = byDay.get(dayOf.format(new Date(`${row.hour}:00:00.000Z`)));
      if (!day || !isCurrency(row.currency)) continue;
      day.count += Number(row.count);
      day.amountEur += toEurCents(Number(row.amount), row.currency);
    }
    return days;
  }
}
