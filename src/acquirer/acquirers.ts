// Which acquirer serves which environment. Test mode is always the simulator; live mode needs a
// connector (none ships yet): without one, every live card operation is 503 ACQUIRER_NOT_CONFIGURED.
import type { Database } from '../db/database.js';
import type { Mode } from '../modules/merchants/merchants.table.js';
import type { Clock } from '../shared/clock.js';
import { AppError } from '../shared/errors.js';
import type { Acquirer } from './acquirer.js';
import { SimulatorAcquirer } from './simulator/simulator.js';

export class Acquirers {
  readonly simulator: SimulatorAcquirer;

  constructor(db: Database, clock: Clock, options: { publicUrl: string; settlementDelaySeconds: number; live?: Acquirer }, ) {
    this.simulator = new SimulatorAcquirer(db, clock, options);
    this.live = options.live ?? null;
  }

  private readonly live: Acquirer | null;

  /** The acquirer for an environment; throws 503 ACQUIRER_NOT_CONFIGURED for live mode without a connector. */
  forMode(mode: Mode): Acquirer {
    if (mode === 'test') return this.simulator;
    if (this.live) return this.live;
    throw new AppError(
      'ACQUIRER_NOT_CONFIGURED',
      'Live payments need an acquirer connector, and none is configured on this Motu instance. Use a test key (sk_test_…) or configure a live acquirer.',
    );
  }

  liveConfigured(): boolean {
    return this.live !== null;
  }
}
