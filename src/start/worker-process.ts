// A worker-only process (`node --import tsx src/start/worker-process.ts`): webhook delivery and the scheduler,
// no HTTP. `motu serve --role worker` does the same with the rest of the CLI around it.
import { parseConfig } from '../config.js';
import { createLogger } from '../http/logger.js';
import { systemClock } from '../shared/clock.js';
import { openMigrated } from './bootstrap.js';
import { startWorkers } from './workers.js';

const config = parseConfig(process.env);
const logger = createLogger(config.logLevel, undefined, config.logFormat);
const db = await openMigrated(config);
const workers = startWorkers(config, db, systemClock, logger);
logger.info({ database: db.dialect }, 'motu worker started');

const stop = async () => {
  await workers.stop();
  await db.close();
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
