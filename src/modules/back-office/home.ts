// The back-office's home: the balance, the volume captured over the last 30 days (one bar a day in the merchant's
// time zone) and the latest payments. The volume is read per UTC hour from what each capture added to its hour
// (capture_volume: at most 744 hours of rows, whatever the merchant's volume), then the hours are put in the
// merchant's local days here: a zone whose offset is not a whole number of hours (India, Nepal) sees the half hour at
// a day's edge on the day before.
import type { Database } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { isCurrency, toEurCents } from '../../shared/money.js';
import type { BalanceService } from '../ledger/balance.service.js';
import type { Owner } from '../merchants/principal.js';
import type { PaymentsService } from '../payments/payments.service.js';
import { readVolume } from './capture-volume.js';

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
    const hours = await readVolume(this.db.kysely, owner, since);
    const byDay = new Map(days.map((d) => [d.day, d]));
    for (const row of hours) {
      const day = byDay.get(dayOf.format(new Date(`${row.hour}:00:00.000Z`)));
      if (!day || !isCurrency(row.currency)) continue;
      day.count += row.count;
      day.amountEur += toEurCents(row.amount, row.currency);
    }
    return days;
  }
}
