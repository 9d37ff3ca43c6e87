// `motu serve`: the HTTP API and pages (role api), the background workers (role worker), or both (all).
import { buildApp } from '../app.js';
import { createLogger } from '../http/logger.js';
import type { Config, Role } from '../config.js';
import { systemClock } from '../shared/clock.js';
import { sqliteBuild } from '../db/sqlite/build.js';
import { openMigrated, resolveAdminToken, seedDemo } from './bootstrap.js';
import { startWorkers } from './workers.js';

export async function serve(config: Config, role: Role, out: (line: string) => void = console.log): Promise<void> {
  const logger = createLogger(config.logLevel, undefined, config.logFormat);
  const clock = systemClock;
  const db = await openMigrated(config);
  const admin = await resolveAdminToken(config, db);
  const demo = await seedDemo(config, db, clock);
  if (admin.generated || demo) {
    // Printed once, on the terminal only: these are the newcomer's first credentials.
    out('');
    out('Motu is ready. Keep these; they are shown only once.');
    if (admin.generated) out(`  Admin token:           ${admin.generated}`);
    if (demo) {
      out(`  Demo merchant:         ${demo.merchantId}`);
      out(`  Demo test secret key:  ${demo.testSecretKey}`);
      out(`  Demo webhook secret:   ${demo.webhookSecret}`);
      out(`  Demo store:            ${demo.storeId} (code "${demo.storeCode}")`);
      out(`  Back-office set-up:    ${demo.backOfficeSetupUrl} (owner@demo-shop.example, valid 72 h)`);
    }
    out('');
  }

  const app = role === 'worker' ? undefined : await buildApp(config, { db, adminTokenHash: admin.hash, clock, logger });
  let listening: string | undefined;
  if (app) {
    listening = await app.listen({ port: config.port, host: config.host });
  }
  const workers = role === 'api' ? undefined : startWorkers(config, db, clock, logger);
  // On SQLite, which build: `npm run sqlite:patched` (opt-in) rebuilds it with the page cache fix (docs/performance.md).
  const sqlite = db.dialect === 'sqlite' ? await sqliteBuild(db.kysely) : undefined;
  logger.info(
    { role, database: db.dialect, listening, url: config.publicUrl, ...(sqlite ? { sqlite: { version: sqlite.version, pageCacheFix: sqlite.pageCacheFix } } : {}) },
    'motu started',
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight work');
    const hardStop = setTimeout(() => process.exit(1), 30_000);
    hardStop.unref();
    let code = 0;
    try {
      // Stop accepting, let in-flight requests answer, then let workers finish their deliveries.
      if (app) {
        // close() stops accepting and closes the connections idle at that moment; a keep-alive connection whose
        // request was in flight becomes idle only later, and would hold the process until its keep-alive timeout
        // (72 s). Sweep those as they go idle; a connection with a request in flight is never cut.
        const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
        try {
          await app.close();
        } finally {
          clearInterval(sweep);
        }
      }
      await workers?.stop();
      await db.close();
      logger.info('stopped');
    } catch (err) {
      code = 1;
      logger.error({ err }, 'shutdown failed');
    } finally {
      clearTimeout(hardStop);
      process.exit(code);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  // Announced only once a SIGTERM would be handled gracefully (supervisors and tests wait for this line), with the two
  // addresses meant for people, in one write so that they come with it.
  if (listening) {
    const base = config.publicUrl.replace(/\/+$/, '');
    out([
      `Motu is listening on ${listening} (public URL ${config.publicUrl})`,
      `  Back-office:    ${base}/dashboard`,
      `  API reference:  ${base}/docs`,
    ].join('\n'));
  }
}
