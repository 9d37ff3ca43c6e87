// `npm run openapi`: writes the OpenAPI documents the running service serves, from the routes' own schemas, to
// openapi/motu.json (the merchant API, GET /api/v1/openapi.json) and openapi/admin.json (the admin API, GET
// /admin/v1/openapi.json behind the admin token). The typed library (packages/node), the linter (redocly.yaml) and
// client generators read these files; test/openapi.test.ts checks they are up to date with the routes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { systemClock } from '../src/shared/clock.js';
import { sha256Hex } from '../src/shared/hash.js';

const ADMIN_TOKEN = 'openapi-dump-token-0123456789';
/** The server the committed documents name: a client sets its own base URL. */
export const DOCUMENTED_SERVER = 'https://motu.test';

/** The documents, built from an app on a throw-away embedded database. */
export async function openApiDocuments(): Promise<{ motu: unknown; admin: unknown }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'motu-openapi-'));
  const db = openDatabase({ dataDir });
  try {
    await migrate(db);
    const config = parseConfig({ MOTU_DATA_DIR: dataDir, MOTU_PUBLIC_URL: DOCUMENTED_SERVER, MOTU_ADMIN_TOKEN: ADMIN_TOKEN });
    const app = await buildApp(config, { db, adminTokenHash: sha256Hex(ADMIN_TOKEN), clock: systemClock });
    await app.ready();
    const motu = (await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const answer = await app.inject({ method: 'GET', url: '/admin/v1/openapi.json', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    if (answer.statusCode !== 200) throw new Error(`GET /admin/v1/openapi.json answered ${answer.statusCode}: ${answer.body}`);
    await app.close();
    return { motu, admin: answer.json() };
  } finally {
    await db.close().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const docs = await openApiDocuments();
  const dir = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'openapi');
  writeFileSync(path.join(dir, 'motu.json'), `${JSON.stringify(docs.motu, null, 2)}\n`);
  writeFileSync(path.join(dir, 'admin.json'), `${JSON.stringify(docs.admin, null, 2)}\n`);
  console.log('openapi/motu.json and openapi/admin.json written');
}
