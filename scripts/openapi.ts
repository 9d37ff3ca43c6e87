// `npm run openapi`: writes the OpenAPI documents the running service serves, from the routes' own schemas,
// to openapi/motu.json (the merchant API). The typed library (packages/node) and the linter read these files;
// the test suite checks they are up to date with the routes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { systemClock } from '../src/shared/clock.js';
import { sha256Hex } from '../src/shared/hash.js';

/** The documents, built from an app on a throw-away embedded database. */
export async function openApiDocuments(): Promise<{ motu: unknown }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'motu-openapi-'));
  const db = openDatabase({ dataDir });
  try {
    await migrate(db);
    const config = parseConfig({ MOTU_DATA_DIR: dataDir, MOTU_PUBLIC_URL: 'http://localhost:3000', MOTU_ADMIN_TOKEN: 'openapi-dump-token-0123456789' });
    const app = await buildApp(config, { db, adminTokenHash: sha256Hex('openapi-dump-token-0123456789'), clock: systemClock });
    await app.ready();
    const motu = app.swagger();
    await app.close();
    return { motu };
  } finally {
    await db.close().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const docs = await openApiDocuments();
  const dir = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'openapi');
  writeFileSync(path.join(dir, 'motu.json'), `${JSON.stringify(docs.motu, null, 2)}\n`);
  console.log('openapi/motu.json written');
}
