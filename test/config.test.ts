// Configuration fails fast, naming the variable (a wrong value stops the start), and the defaults are those of README.md (Configuration).
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
    assert.equal(c.operationClaimSeconds, 120);
    assert.equal(parseConfig({ MOTU_OPERATION_CLAIM_SECONDS: '10' }).operationClaimSeconds, 10);
    assert.equal(c.mail, undefined, 'no mailer by default');
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
      ['MOTU_OPERATION_CLAIM_SECONDS', '2'],
      ['MOTU_OPERATION_CLAIM_SECONDS', 'soon'],
      ['MOTU_SMTP_URL', 'mail.example.com:587'],
      ['MOTU_SMTP_URL', 'https://mail.example.com'],
      ['MOTU_MAIL_FROM', 'not an address'],
      ['MOTU_MAIL_FROM', 'a@b.example\r\nBcc: x@y.example'],
    ];
    for (const [name, value] of cases) {
      assert.throws(
        () => parseConfig({ [name]: value }),
        (err: unknown) => err instanceof ConfigError && err.variable === name && err.message.includes(name),
        `${name}=${value}`,
      );
    }
  });

  it('configures the mailer from MOTU_SMTP_URL and MOTU_MAIL_FROM, never echoing the URL', () => {
    const mail = parseConfig({ MOTU_SMTP_URL: 'smtps://relay:s3cret-pass@mail.example.com:465', MOTU_MAIL_FROM: 'Shop <pay@shop.example>' }).mail;
    assert.deepEqual(mail, { smtpUrl: 'smtps://relay:s3cret-pass@mail.example.com:465', from: 'Shop <pay@shop.example>', testAllowlist: [] });
    assert.throws(() => parseConfig({ MOTU_SMTP_URL: 'smtp://relay:s3cret-pass@mail.example.com:587' }),
      (err: unknown) => err instanceof ConfigError && err.variable === 'MOTU_MAIL_FROM');
    for (const bad of ['smtp//relay:s3cret-pass@x', 'http://relay:s3cret-pass@mail.example.com']) {
      assert.throws(() => parseConfig({ MOTU_SMTP_URL: bad, MOTU_MAIL_FROM: 'pay@shop.example' }),
        (err: unknown) => err instanceof ConfigError && err.variable === 'MOTU_SMTP_URL' && !err.message.includes('s3cret-pass'));
    }
  });
});
