// The ceiling for bench/sessions: a bare Fastify route doing what every API call must do anyway
// (look the bearer key up by its SHA-256 in the same database) and answering the same JSON,
// without validation, transaction, commit or hooks.
import Fastify from 'fastify';
import { openDatabase } from '../src/db/database.js';
import { sha256Hex } from '../src/shared/hash.js';

const route = process.env.BARE_ROUTE ?? '/api/v1/customers';
const response = process.env.BARE_RESPONSE ?? '{}';
const db = openDatabase({ databaseUrl: process.env.DATABASE_URL || undefined, dataDir: process.env.MOTU_DATA_DIR ?? './data' });
const app = Fastify({ logger: false });

app.post(route, async (request, reply) => {
  const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
  const key = await db.kysely
    .selectFrom('api_keys')
    .select(['id', 'merchant_id', 'mode', 'permission', 'store_id', 'revoked_at'])
    .where('key_hash', '=', sha256Hex(token))
    .executeTakeFirst();
  if (!key || key.revoked_at) return reply.code(401).send({ code: 'UNAUTHORIZED', message: 'This API key is not valid' });
  return reply.code(201).header('content-type', 'application/json; charset=utf-8').send(response);
});

const address = await app.listen({ port: 0, host: '127.0.0.1' });
console.log(`Motu is listening on ${address}`);
process.once('SIGTERM', () => {
  void app.close().then(() => db.close()).then(() => process.exit(0));
});
