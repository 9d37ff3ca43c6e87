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
    const dayOf = formatterOf(timeZone);
    const days: VolumeDay[] = [];
    for (let i = VOLUME_DAYS - 1; i >= 0; i--) {
      const day = dayOf.format(new Date(now.getTime() - i * 86_400_000));
      if (days.at(-1)?.day !== day) days.push({ day, count: 0, amountEur: 0 });
    }
    const since = new Date(now.getTime() - (VOLUME_DAYS + 1) * 86_400_000);
    const hours = await readVolume(this.db.kysely, owner, since.toISOString());
    const dayOfHour = placer(timeZone, days, since, now);
    for (const row of hours) {
      const day = dayOfHour(row.hour);
      if (!day || !isCurrency(row.currency)) continue;
      day.count += row.count;
      day.amountEur += toEurCents(row.amount, row.currency);
    }
    return days;
  }
}

const DAY_MS = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();
const partFormatters = new Map<string, Intl.DateTimeFormat>();

/** YYYY-MM-DD in the zone (made once per zone: making one costs more than formatting with it). */
function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) formatters.set(timeZone, f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }));
  return f;
}

/** The zone's offset from UTC at `at`, in milliseconds (east positive). */
function offsetOf(timeZone: string, at: Date): number {
  let f = partFormatters.get(timeZone);
  if (!f) {
    partFormatters.set(timeZone, f = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    }));
  }
  const parts = Object.fromEntries(f.formatToParts(at).map((p) => [p.type, p.value]));
  const local = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  return local - Math.floor(at.getTime() / 1000) * 1000;
}

/**
 * The day of `days` (consecutive local days) an hour's start falls on in the zone. Formatting a date in a time zone
 * is most of the home's time once there are hundreds of hours to place: when the zone's offset is the same at both ends
 * of the window (no change of summer time within it), an hour's local day is found by arithmetic (its start plus the
 * offset, in whole days from the first day's UTC date); otherwise each hour is formatted, once.
 */
function placer(timeZone: string, days: VolumeDay[], from: Date, to: Date): (hour: string) => VolumeDay | undefined {
  const offset = offsetOf(timeZone, from);
  if (offset === offsetOf(timeZone, to)) {
    const first = Date.parse(`${days[0]!.day}T00:00:00.000Z`);
    return (hour) => {
      const start = Date.UTC(Number(hour.slice(0, 4)), Number(hour.slice(5, 7)) - 1, Number(hour.slice(8, 10)), Number(hour.slice(11, 13)));
      const index = Math.floor((start + offset - first) / DAY_MS);
      return index >= 0 ? days[index] : undefined;
    };
  }
  const byDay = new Map(days.map((d) => [d.day, d]));
  const dayOf = formatterOf(timeZone);
  const known = new Map<string, VolumeDay | undefined>();
  return (hour) => {
    if (!known.has(hour)) known.set(hour, byDay.get(dayOf.format(new Date(`${hour}:00:00.000Z`))));
    return known.get(hour);
  };
}
