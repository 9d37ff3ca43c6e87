// The delivery worker's signing secrets, kept per merchant and mode (src/events/secret-cache.ts): the sends in flight
// that all find the entry missing or expired at once read it once between them, and a rotation is never overtaken.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import type { Database } from '../src/db/database.js';
import { SigningSecretCache } from '../src/events/secret-cache.js';
import { secretBoxFor } from '../src/shared/secret-box.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { sleep } from './support/wait.js';

/** Counts the statements that read the webhook_secrets table, on the real database. */
class SecretReads implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (args.node.kind === 'SelectQueryNode' && JSON.stringify(args.node.from).includes('"webhook_secrets"')) this.count++;
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

eachDatabase('webhook signing secrets kept in the worker', (dialect) => {
  const { t, m } = withMerchantApp(dialect);
  const mode = 'test';

  function counted(ttlMs?: number) {
    const reads = new SecretReads();
    const db: Database = { ...t.db, kysely: t.db.kysely.withPlugin(reads) };
    return { reads, cache: new SigningSecretCache(db, secretBoxFor(t.config), ttlMs) };
  }

  it('20 sends that find the secret missing read it once, and again once between them when it has expired', async () => {
    const { reads, cache } = counted(50);
    try {
      const key = `${m.id}:${mode}`;
      await Promise.all(Array.from({ length: 20 }, () => cache.load([key])));
      assert.equal(reads.count, 1);
      assert.equal(cache.cached(m.id, mode, Date.now())?.secret, m.webhookSecret);
      await Promise.all(Array.from({ length: 20 }, () => cache.load([key])));
      assert.equal(reads.count, 1, 'fresh: not read again');
      await sleep(60);
      assert.equal(cache.cached(m.id, mode, Date.now()), undefined, 'expired');
      await Promise.all(Array.from({ length: 20 }, () => cache.load([key, `${m.id}:${mode}`])));
      assert.equal(reads.count, 2);
      assert.equal(cache.cached(m.id, mode, Date.now())?.secret, m.webhookSecret);
    } finally {
      cache.close();
    }
  });

  it('a rotation while the secret is being read: the sends that waited for that read sign with the new secret', async () => {
    const { cache } = counted();
    try {
      const key = `${m.id}:${mode}`;
      const waiting = Array.from({ length: 10 }, () => cache.load([key]));
      const rotated = await t.api(m.testKey, 'POST', '/api/v1/webhooks/signing-secret/rotate');
      assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
      await Promise.all(waiting);
      // Loaded before or after the rotation returned: never the replaced secret alone.
      let s = cache.cached(m.id, mode, Date.now());
      if (s === undefined) {
        await cache.load([key]);
        s = cache.cached(m.id, mode, Date.now());
      }
      assert.equal(s?.secret, rotated.body.webhookSecret);
    } finally {
      cache.close();
    }
  });
});
