// `motu users create` and `motu users list`: the operator's way to a merchant's first back-office user, on the same
// database as a running app. The printed set-up link signs the user in.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { main } from '../src/start/cli.js';
import { PASSWORD } from './support/back-office.js';
import { ADMIN_TOKEN, eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';

async function motu(env: Record<string, string | undefined>, ...argv: string[]): Promise<{ code: number; out: any }> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  if (env.DATABASE_URL === undefined) delete process.env.DATABASE_URL;
  const lines: string[] = [];
  try {
    const code = await main(argv, (line) => lines.push(line));
    return { code, out: JSON.parse(lines.join('\n')) };
  } finally {
    process.env = saved;
  }
}

eachDatabase('motu users', (dialect) => {
  const { t, m } = withMerchantApp(dialect);
  const env = () => ({ MOTU_DATA_DIR: t.dataDir, DATABASE_URL: t.databaseUrl, MOTU_ADMIN_TOKEN: ADMIN_TOKEN, MOTU_PUBLIC_URL: 'http://localhost:3000', MOTU_SEED_DEMO: 'false', LOG_LEVEL: 'silent' });

  it('creates a user and prints {id, email, role, setupUrl}; the link signs in; bad input is a JSON error with exit 1', async () => {
    const created = await motu(env(), 'users', 'create', '--merchant', m.id, '--email', 'boss@shop.example', '--role', 'owner');
    assert.equal(created.code, 0);
    assert.deepEqual(Object.keys(created.out).filter((k) => ['id', 'email', 'role', 'setupUrl'].includes(k)).sort(), ['email', 'id', 'role', 'setupUrl']);
    assert.equal(created.out.role, 'owner');
    const token = String(created.out.setupUrl).split('/').at(-1);
    const setUp = await t.api(undefined, 'POST', '/dashboard/api/setup', { token, password: PASSWORD });
    assert.equal(setUp.status, 200, JSON.stringify(setUp.body));
    assert.equal(setUp.body.merchant.id, m.id);

    const listed = await motu(env(), 'users', 'list', '--merchant', m.id);
    assert.deepEqual(listed.out.data.map((u: { email: string; status: string }) => [u.email, u.status]), [['boss@shop.example', 'active']]);

    const badRole = await motu(env(), 'users', 'create', '--merchant', m.id, '--email', 'x@shop.example', '--role', 'king');
    assert.equal(badRole.code, 1);
    assert.equal(badRole.out.code, 'VALIDATION_ERROR');
    const unknown = await motu(env(), 'users', 'create', '--merchant', 'mer_0000000000000000000000', '--email', 'y@shop.example', '--role', 'owner');
    assert.equal(unknown.code, 1);
    assert.equal(unknown.out.code, 'NOT_FOUND');
  });
});
