// Secrets at rest (webhook signing secrets): AES-256-GCM with the key of MOTU_SECRETS_KEY, or — without it — a key
// generated once and kept in MOTU_DATA_DIR/secrets.key (mode 0600). A sealed value is `v1:` + base64(iv ‖ tag ‖ ciphertext);
// a value without the prefix is a row written before encryption existed and is read as is (then sealed at start-up).
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { ensurePrivateDir } from './private-files.js';
import path from 'node:path';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';

const PREFIX = 'v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const SECRETS_KEY_FILE = 'secrets.key';

export class SecretBox {
  constructor(
    private readonly key: Buffer,
    /** Where the key came from, and a warning to log once when the operator should set MOTU_SECRETS_KEY. */
    readonly source: 'env' | 'file',
    readonly warning?: string,
  ) {
    if (key.length !== 32) throw new Error('the secrets key must be 32 bytes');
  }

  seal(plain: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  open(stored: string): string {
    if (!SecretBox.isSealed(stored)) return stored;
    const raw = Buffer.from(stored.slice(PREFIX.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new Error('a stored secret cannot be decrypted: MOTU_SECRETS_KEY (or MOTU_DATA_DIR/secrets.key) is not the key it was sealed with');
    }
  }

  /** A key for `purpose` derived from the secrets key (HMAC-SHA-256): the same in every process that shares it. */
  derivedKey(purpose: string): Buffer {
    return createHmac('sha256', this.key).update(`motu:${purpose}`).digest();
  }

  static isSealed(stored: string): boolean {
    return stored.startsWith(PREFIX);
  }
}

/** 32 bytes given as 64 hex characters or as base64 (44 characters); undefined if neither. */
export function parseSecretsKey(raw: string): Buffer | undefined {
  const v = raw.trim();
  if (/^[0-9a-fA-F]{64}$/.test(v)) return Buffer.from(v, 'hex');
  if (/^[A-Za-z0-9+/]{43}=$/.test(v)) return Buffer.from(v, 'base64');
  return undefined;
}

function keyFromFile(dataDir: string): Buffer {
  ensurePrivateDir(dataDir);
  const file = path.join(dataDir, SECRETS_KEY_FILE);
  try {
    // 'wx': only the first process creates it; a concurrent one gets EEXIST and reads the winner's key.
    writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  const key = parseSecretsKey(readFileSync(file, 'utf8'));
  if (!key) throw new Error(`${file} does not hold a 32-byte base64 key; restore it, or set MOTU_SECRETS_KEY to the key it held`);
  return key;
}

const boxes = new Map<string, SecretBox>();

/**
 * The box for a configuration: MOTU_SECRETS_KEY when set (config.ts has validated it and refuses PostgreSQL in
 * production without it), else the key file in the data folder. One instance per key source, so every reader agrees.
 */
export function secretBoxFor(config: Pick<Config, 'secretsKey' | 'dataDir' | 'databaseUrl'>): SecretBox {
  const id = config.secretsKey ? `env:${config.secretsKey}` : `file:${path.resolve(config.dataDir)}`;
  let box = boxes.get(id);
  if (!box) {
    if (config.secretsKey) {
      box = new SecretBox(parseSecretsKey(config.secretsKey)!, 'env');
    } else {
      const warning = config.databaseUrl
        ? `MOTU_SECRETS_KEY is not set: signing secrets are sealed with the key file ${path.join(config.dataDir, SECRETS_KEY_FILE)}; ` +
          'every process sharing this PostgreSQL database needs that same key: set MOTU_SECRETS_KEY (required in production)'
        : undefined;
      box = new SecretBox(keyFromFile(config.dataDir), 'file', warning);
    }
    boxes.set(id, box);
  }
  return box;
}

/** Seals webhook secrets still stored in clear (rows written before encryption). Idempotent; safe in every process. */
export async function sealStoredWebhookSecrets(db: Database, box: SecretBox): Promise<number> {
  const rows = await db.kysely.selectFrom('webhook_secrets').select(['merchant_id', 'mode', 'secret', 'previous_secret']).execute();
  let sealed = 0;
  for (const row of rows) {
    const clearSecret = !SecretBox.isSealed(row.secret);
    const clearPrevious = row.previous_secret !== null && !SecretBox.isSealed(row.previous_secret);
    if (!clearSecret && !clearPrevious) continue;
    await db.transaction((trx) =>
      trx
        .updateTable('webhook_secrets')
        .set({
          ...(clearSecret ? { secret: box.seal(row.secret) } : {}),
          ...(clearPrevious ? { previous_secret: box.seal(row.previous_secret!) } : {}),
        })
        .where('merchant_id', '=', row.merchant_id)
        .where('mode', '=', row.mode)
        .where('secret', '=', row.secret)
        .execute(),
    );
    sealed++;
  }
  return sealed;
}
