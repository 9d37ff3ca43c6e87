// Configuration fails fast, naming the variable (STYLE.md habit 9), and the defaults are DESIGN.md section 2's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, parseConfig } from '../src/config.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = parseConfig({});
    assert.equal(c.port, 3000);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.publicUrl, 'http://localhost:3000');
    assert.equal(c.dataDir, './data');
    assert.equal(c.databaseUrl, undefined);
    assert.deepEqual(c.webhookRetrySchedule, [30, 120, 600, 3600, 21600]);
    assert.equal(c.webhookTimeoutMs, 10_000);
    assert.equal(c.allowLoopbackUrls, true);
    assert.equal(c.seedDemo, true);
    assert.equal(c.logLevel, 'info');
    assert.deepEqual(c.rateLimit, { max: 1000, windowMs: 60_000 });
    assert.equal(c.bodyLimitBytes, 1_048_576);
    assert.equal(c.sqliteGroupCommit, true);
    assert.equal(c.refundRecoverySeconds, 120);
    assert.equal(parseConfig({ MOTU_REFUND_RECOVERY_SECONDS: '10' }).refundRecoverySeconds, 10);
    assert.ok(Object.isFrozen(c));
    assert.equal(parseConfig({ PORT: '8080' }).publicUrl, 'http://localhost:8080');
  });

  it('turns the demo seed and loopback URLs off in production', () => {
    const c = parseConfig({ NODE_ENV: 'production' });
    assert.equal(c.seedDemo, false);
    assert.equal(c.allowLoopbackUrls, false);
  });

  it('refuses wrong values, naming the variable', () => {
    const cases: [string, string][] = [
      ['PORT', '80a'],
      ['PORT', '70000'],
      ['DATABASE_URL', 'mysql://x'],
      ['MOTU_PUBLIC_URL', 'not a url'],
      ['MOTU_PUBLIC_URL', 'ftp://pay.example.com'],
      ['MOTU_ADMIN_TOKEN', 'short'],
      ['MOTU_WEBHOOK_RETRY_SCHEDULE', '30,120'],
      ['MOTU_WEBHOOK_TIMEOUT_MS', '-1'],
      ['MOTU_ALLOW_LOOPBACK_URLS', 'maybe'],
      ['MOTU_SEED_DEMO', 'oui'],
      ['LOG_LEVEL', 'verbose'],
      ['MOTU_RATE_LIMIT_MAX', '0'],
      ['MOTU_RATE_LIMIT_WINDOW_MS', '1.5'],
      ['MOTU_BODY_LIMIT_BYTES', '10'],
      ['MOTU_TEST_SETTLEMENT_DELAY', 'soon'],
      ['MOTU_SQLITE_GROUP_COMMIT', 'sometimes'],
      ['MOTU_REFUND_RECOVERY_SECONDS', '2'],
      ['MOTU_REFUND_RECOVERY_SECONDS', 'soon'],
    ];
    for (const [name, value] of cases) {
      assert.throws(
        () => parseConfig({ [name]: value }),
        (err: unknown) => err instanceof ConfigError && err.variable === name && err.message.includes(name),
        `${name}=${value}`,
      );
    }
  });
});
