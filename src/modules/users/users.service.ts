// The merchant's team: users created by the operator or invited by an owner or admin, set up through a one-time
// link, signed in with a password and, when they turned it on, a TOTP or recovery code. Lockouts and used codes are
// rows, so every api process sees them.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Database, Trx } from '../../db/database.js';
import type { MailOutbox } from '../../mail/outbox.js';
import { mailable } from '../../mail/outbox.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, invalidField, notFound } from '../../shared/errors.js';
import { newId, randomToken } from '../../shared/ids.js';
import type { SecretBox } from '../../shared/secret-box.js';
import { requireMerchant } from '../merchants/merchants.repository.js';
import { checkPasswordRules, dummyHash, hashPassword, passwordMatches } from './passwords.js';
import { mayAssign, mayManageTeam } from './roles.js';
import { normalizedEmail, SignInAttempts } from './sign-in-attempts.js';
import { newRecoveryCodes, newTotpSecret, recoveryCodeHash, totpFor, totpStep } from './two-factor.js';
import type { UserSession } from './user-sessions.js';
import { ROLES, type Role, type UserRow } from './users.table.js';

export const SETUP_LINK_HOURS = 72;

export interface UserView {
  id: string;
  email: string;
  role: Role;
  status: 'invited' | 'active';
  twoFactorEnabled: boolean;
  createdAt: string;
  lastSignInAt: string | null;
}

export function userView(row: UserRow): UserView {
  return {
    id: row.id, email: row.email, role: row.role, status: row.password_hash ? 'active' : 'invited',
    twoFactorEnabled: row.totp_enabled === 1, createdAt: row.created_at, lastSignInAt: row.last_sign_in_at,
  };
}

/** What becomes of the API keys a removed user made: revoked, or handed over to whoever removes them. */
export type KeysOnRemoval = 'revoke' | 'hand-over';

export interface NewUser {
  user: UserView;
  /** The set-up link; null when it was mailed to the user instead (an invitation with a mailer configured). */
  setupUrl: string | null;
  emailSent: boolean;
}

export class UsersService {
  private readonly setupKey: Buffer;
  private readonly attempts: SignInAttempts;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly options: { publicUrl: string; box: SecretBox; mail: MailOutbox | null },
  ) {
    this.setupKey = options.box.derivedKey('back-office-setup-link');
    this.attempts = new SignInAttempts(db, clock);
    void dummyHash();
  }

  private now(): Date {
    return this.clock.now();
  }

  /** The operator's way in (`motu users create`): a user of any role, its set-up link answered to the operator. */
  async create(merchantId: string, input: { email: string; role: string }): Promise<NewUser> {
    return this.add(merchantId, input, null, false);
  }

  /** An owner or admin invites a teammate: mailed when a mailer is configured, the link answered otherwise. */
  async invite(actor: UserSession, input: { email: string; role: string }): Promise<NewUser> {
    const role = parseRole(input.role);
    if (!mayAssign(actor.role, role)) throw new AppError('PERMISSION_DENIED', `A ${actor.role} cannot invite a user as ${role}`);
    return this.add(actor.merchantId, input, actor.userId, this.options.mail !== null);
  }

  private async add(merchantId: string, input: { email: string; role: string }, invitedBy: string | null, mailIt: boolean): Promise<NewUser> {
    const email = input.email.trim().toLowerCase();
    if (!mailable(email)) throw invalidField('email', 'must be an email address');
    const role = parseRole(input.role);
    const nonce = randomToken(22);
    const now = this.now();
    const expires = new Date(now.getTime() + SETUP_LINK_HOURS * 3600_000).toISOString();
    const taken = () => new AppError('ALREADY_EXISTS', 'This email is already in your team', { field: 'email' });
    const row = await this.db.transaction(async (trx) => {
      await requireMerchant(trx, merchantId);
      // Only this merchant's team is looked at: an address another team has is invited like any other (it becomes an
      // account of its own here), so an invitation tells nothing about other merchants.
      const existing = await trx.selectFrom('users').selectAll().where('merchant_id', '=', merchantId).where('email', '=', email).executeTakeFirst();
      if (existing && existing.removed_at === null) throw taken();
      const fresh = {
        merchant_id: merchantId, email, role, password_hash: null, setup_nonce: nonce, setup_expires_at: expires,
        totp_secret: null, totp_enabled: 0, totp_last_step: null, recovery_codes: null, failed_sign_ins: 0, locked_until: null,
        invited_by: invitedBy, created_at: now.toISOString(), last_sign_in_at: null, removed_at: null,
      };
      // A removed user's address is given a new life: the same row (its past actions keep their author), set up afresh.
      const id = existing?.id ?? newId('usr');
      if (existing) await trx.updateTable('users').set(fresh).where('id', '=', id).execute();
      else await trx.insertInto('users').values({ id, ...fresh }).execute();
      const sent = mailIt && this.options.mail
        ? (await this.options.mail.enqueue(trx, { merchantId, mode: 'live', kind: 'invitation', subjectId: `${id}:${nonce}`, recipient: email, locale: 'en' })) !== null
        : false;
      return { id, ...fresh, sent };
    }).catch((err: unknown) => {
      // The same address invited twice at once: one invitation.
      if (this.db.isUniqueViolation(err)) throw taken();
      throw err;
    });
    return { user: userView(row), setupUrl: row.sent ? null : this.setupUrl(row.id, nonce), emailSent: row.sent };
  }

  /** The set-up link of a user and nonce (the invitation mail is composed from them, later, by the worker). */
  setupUrl(userId: string, nonce: string): string {
    return `${this.options.publicUrl}/dashboard/setup/${userId}.${this.setupMac(userId, nonce)}`;
  }

  private setupMac(userId: string, nonce: string): string {
    return createHmac('sha256', this.setupKey).update(`${userId}\n${nonce}`).digest('base64url');
  }

  /** The user a set-up link names, if the link is still good: unused, unexpired, the user not removed. */
  private async setupUser(trx: Trx | Database['kysely'], token: string): Promise<UserRow> {
    const match = /^(usr_[0-9A-Za-z]{22})\.([A-Za-z0-9_-]{43})$/.exec(token);
    const gone = notFound('set-up link');
    if (!match) throw gone;
    const row = await trx.selectFrom('users').selectAll().where('id', '=', match[1]!).executeTakeFirst();
    if (!row || row.removed_at !== null || row.setup_nonce === null || row.setup_expires_at === null) throw gone;
    const expected = Buffer.from(this.setupMac(row.id, row.setup_nonce));
    const given = Buffer.from(match[2]!);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw gone;
    if (Date.parse(row.setup_expires_at) <= this.now().getTime()) throw gone;
    return row;
  }

  async setupInfo(token: string): Promise<{ email: string; merchantName: string }> {
    const row = await this.setupUser(this.db.kysely, token);
    const merchant = await this.db.kysely.selectFrom('merchants').select(['name', 'display_name']).where('id', '=', row.merchant_id).executeTakeFirstOrThrow();
    return { email: row.email, merchantName: merchant.display_name ?? merchant.name };
  }

  /** Sets the password through the link, once; answers the user, whom the caller signs in. */
  async completeSetup(token: string, password: string): Promise<UserRow> {
    checkPasswordRules(password);
    // The address's accounts in other teams are told apart at sign-in by their passwords: each needs its own.
    const pending = await this.setupUser(this.db.kysely, token);
    if (await this.opensAnother(pending.email, pending.id, password)) {
      throw invalidField('password', 'already opens your account in another team; choose a different password for this one');
    }
    const passwordHash = await hashPassword(password);
    return this.db.transaction(async (trx) => {
      const row = await this.setupUser(trx, token);
      // Guarded by the nonce: of two uses of one link racing, one sets the password.
      const res = await trx.updateTable('users')
        .set({ password_hash: passwordHash, setup_nonce: null, setup_expires_at: null, last_sign_in_at: this.now().toISOString() })
        .where('id', '=', row.id).where('setup_nonce', '=', row.setup_nonce).executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) throw notFound('set-up link');
      return { ...row, password_hash: passwordHash };
    });
  }

  /**
   * Email, password and, with two-factor on, a TOTP or recovery code. The attempt is counted before anything is checked
   * (sign-in-attempts.ts): the tenth wrong password or code in a row locks the address LOCKOUT_MINUTES, during which
   * even the right password is refused. A known address and an unknown one take the same steps (the count, the user
   * lookup, a password hash verified per account: the dummy one when there is none) and get the same answers.
   */
  async signIn(input: { email: string; password: string; code?: string }): Promise<UserRow> {
    const email = normalizedEmail(input.email);
    const attempt = await this.attempts.begin(email);
    const row = await this.accountOpenedBy(email, input.password);
    if (!row) {
      await this.attempts.failed(attempt);
      throw new AppError('INVALID_CREDENTIALS', 'The email or the password is wrong');
    }
    if (row.totp_enabled === 1) {
      const code = input.code?.trim();
      if (!code) {
        await this.attempts.released(attempt);
        throw new AppError('TWO_FACTOR_REQUIRED', 'Enter the code of your authenticator app, or a recovery code');
      }
      if (!(await this.acceptSecondFactor(row, code))) {
        await this.attempts.failed(attempt);
        throw new AppError('INVALID_TWO_FACTOR_CODE', 'This code is not valid');
      }
    }
    await this.attempts.succeeded(attempt);
    await this.db.kysely.updateTable('users').set({ last_sign_in_at: this.now().toISOString() }).where('id', '=', row.id).execute();
    return row;
  }

  /**
   * The account of `email` that `password` opens, if any. An address has one account per team it belongs to, each
   * with its own password; every one is verified (side by side, on the thread pool), and the dummy hash when the
   * address has none, so an unknown address costs what a known one does.
   */
  private async accountOpenedBy(email: string, password: string): Promise<UserRow | undefined> {
    const rows = await this.db.kysely.selectFrom('users').selectAll().where('email', '=', email).where('removed_at', 'is', null)
      .where('password_hash', 'is not', null).orderBy('id').execute();
    if (rows.length === 0) {
      await passwordMatches(null, password);
      return undefined;
    }
    const matches = await Promise.all(rows.map((r) => passwordMatches(r.password_hash, password)));
    return rows[matches.indexOf(true)];
  }

  /** Whether `password` opens another account of the same address (another team's). */
  private async opensAnother(email: string, userId: string, password: string): Promise<boolean> {
    const others = await this.db.kysely.selectFrom('users').select('password_hash').where('email', '=', email).where('id', '!=', userId)
      .where('removed_at', 'is', null).where('password_hash', 'is not', null).execute();
    return (await Promise.all(others.map((o) => passwordMatches(o.password_hash, password)))).includes(true);
  }

  /** A TOTP code of a step not used yet, or an unused recovery code (used up by this call). */
  private async acceptSecondFactor(row: UserRow, code: string): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const current = await this.db.lockForUpdate(trx.selectFrom('users').select(['totp_secret', 'totp_last_step', 'recovery_codes']).where('id', '=', row.id)).executeTakeFirstOrThrow();
      if (!current.totp_secret) return false;
      const step = totpStep(this.options.box.open(current.totp_secret), code, this.now());
      if (step !== null) {
        if (current.totp_last_step !== null && step <= current.totp_last_step) return false;
        await trx.updateTable('users').set({ totp_last_step: step }).where('id', '=', row.id).execute();
        return true;
      }
      const hashes: string[] = JSON.parse(current.recovery_codes ?? '[]');
      const left = hashes.filter((h) => h !== recoveryCodeHash(code));
      if (left.length === hashes.length) return false;
      await trx.updateTable('users').set({ recovery_codes: JSON.stringify(left) }).where('id', '=', row.id).execute();
      return true;
    });
  }

  async get(userId: string): Promise<UserRow> {
    const row = await this.db.kysely.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
    if (!row) throw notFound('user', userId);
    return row;
  }

  /** The team, each with the number of API keys they made (or were handed) that still work. */
  async list(merchantId: string): Promise<(UserView & { apiKeys: number })[]> {
    const rows = await this.db.kysely.selectFrom('users').selectAll().where('merchant_id', '=', merchantId).where('removed_at', 'is', null).orderBy('created_at').orderBy('id').execute();
    const keys = await this.db.kysely.selectFrom('api_keys').select(['created_by', (eb) => eb.fn.countAll<number | string>().as('n')])
      .where('merchant_id', '=', merchantId).where('created_by', 'is not', null).where('revoked_at', 'is', null).groupBy('created_by').execute();
    const count = new Map(keys.map((k) => [k.created_by, Number(k.n)]));
    return rows.map((row) => ({ ...userView(row), apiKeys: count.get(row.id) ?? 0 }));
  }

  async changeRole(actor: UserSession, userId: string, newRole: string): Promise<UserView> {
    const role = parseRole(newRole);
    return this.db.transaction(async (trx) => {
      const target = await this.teammate(trx, actor, userId);
      if (!mayAssign(actor.role, target.role) || !mayAssign(actor.role, role)) throw new AppError('PERMISSION_DENIED', 'Only an owner changes an owner, or makes one');
      if (target.role === 'owner' && role !== 'owner') await this.keepAnOwner(trx, actor.merchantId, userId);
      await trx.updateTable('users').set({ role }).where('id', '=', userId).execute();
      // The keys the user made follow their role: a key never does more than its maker may.
      await trx.updateTable('api_keys').set({ role }).where('created_by', '=', userId).where('revoked_at', 'is', null).execute();
      return userView({ ...target, role });
    });
  }

  /**
   * Removes a teammate: their sessions end, and the API keys they made in the back-office are revoked, or, when the
   * remover chooses `hand-over`, handed to the remover (then the remover's role is their ceiling).
   */
  async remove(actor: UserSession, userId: string, keys: KeysOnRemoval = 'revoke'): Promise<void> {
    await this.db.transaction(async (trx) => {
      const target = await this.teammate(trx, actor, userId);
      if (!mayAssign(actor.role, target.role)) throw new AppError('PERMISSION_DENIED', 'Only an owner removes an owner');
      if (target.role === 'owner') await this.keepAnOwner(trx, actor.merchantId, userId);
      const now = this.now().toISOString();
      const theirKeys = trx.updateTable('api_keys').where('created_by', '=', userId).where('revoked_at', 'is', null);
      if (keys === 'hand-over') await theirKeys.set({ created_by: actor.userId, role: actor.role }).execute();
      else await theirKeys.set({ revoked_at: now }).execute();
      await trx.updateTable('users').set({ removed_at: now, setup_nonce: null, setup_expires_at: null }).where('id', '=', userId).execute();
      await trx.updateTable('user_sessions').set({ ended_at: now }).where('user_id', '=', userId).where('ended_at', 'is', null).execute();
    });
  }

  private async teammate(trx: Trx, actor: UserSession, userId: string): Promise<UserRow> {
    if (!mayManageTeam(actor.role)) throw new AppError('PERMISSION_DENIED', 'Only owners and admins manage the team');
    const row = await this.db.lockForUpdate(trx.selectFrom('users').selectAll().where('id', '=', userId).where('merchant_id', '=', actor.merchantId).where('removed_at', 'is', null)).executeTakeFirst();
    if (!row) throw notFound('user', userId);
    return row;
  }

  /** A merchant always keeps an owner: the last one can be neither removed nor demoted. */
  private async keepAnOwner(trx: Trx, merchantId: string, leaving: string): Promise<void> {
    const others = await this.db.lockForUpdate(trx.selectFrom('users').select('id').where('merchant_id', '=', merchantId).where('role', '=', 'owner')
      .where('removed_at', 'is', null).where('id', '!=', leaving)).execute();
    if (others.length === 0) throw new AppError('LAST_OWNER', 'The merchant must keep an owner: make someone else owner first');
  }

  /** Starts enrolment: a new secret (sealed), not in force until a first code confirms it. */
  async startTwoFactor(actor: UserSession): Promise<{ secret: string; otpauthUrl: string }> {
    const secret = newTotpSecret();
    const res = await this.db.kysely.updateTable('users').set({ totp_secret: this.options.box.seal(secret) })
      .where('id', '=', actor.userId).where('totp_enabled', '=', 0).executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) throw new AppError('BUSINESS_RULE_VIOLATION', 'Two-factor authentication is already on; turn it off first');
    return { secret, otpauthUrl: totpFor(secret, actor.email).toString() };
  }

  /** Confirms enrolment with a code of the new secret; answers the ten recovery codes, shown this once. */
  async enableTwoFactor(actor: UserSession, code: string): Promise<string[]> {
    const codes = newRecoveryCodes();
    await this.db.transaction(async (trx) => {
      const row = await this.db.lockForUpdate(trx.selectFrom('users').select(['totp_secret', 'totp_enabled']).where('id', '=', actor.userId)).executeTakeFirstOrThrow();
      if (row.totp_enabled === 1) throw new AppError('BUSINESS_RULE_VIOLATION', 'Two-factor authentication is already on');
      if (!row.totp_secret) throw new AppError('BUSINESS_RULE_VIOLATION', 'Start the set-up first');
      const step = totpStep(this.options.box.open(row.totp_secret), code, this.now());
      if (step === null) throw invalidField('code', 'is not the current code of your authenticator app');
      await trx.updateTable('users').set({ totp_enabled: 1, totp_last_step: step, recovery_codes: JSON.stringify(codes.map(recoveryCodeHash)) })
        .where('id', '=', actor.userId).execute();
    });
    return codes;
  }

  async disableTwoFactor(actor: UserSession, password: string): Promise<void> {
    await this.confirmPassword(actor, password);
    await this.db.kysely.updateTable('users').set({ totp_enabled: 0, totp_secret: null, totp_last_step: null, recovery_codes: null }).where('id', '=', actor.userId).execute();
  }

  async regenerateRecoveryCodes(actor: UserSession, password: string): Promise<string[]> {
    await this.confirmPassword(actor, password);
    const codes = newRecoveryCodes();
    const res = await this.db.kysely.updateTable('users').set({ recovery_codes: JSON.stringify(codes.map(recoveryCodeHash)) })
      .where('id', '=', actor.userId).where('totp_enabled', '=', 1).executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) throw new AppError('BUSINESS_RULE_VIOLATION', 'Two-factor authentication is off');
    return codes;
  }

  /** A sensitive change asks the password again; a wrong one counts toward the lockout like a sign-in. */
  private async confirmPassword(actor: UserSession, password: string): Promise<void> {
    const row = await this.get(actor.userId);
    const attempt = await this.attempts.begin(row.email);
    if (!(await passwordMatches(row.password_hash, password))) {
      await this.attempts.failed(attempt);
      throw invalidField('password', 'is not your password');
    }
    await this.attempts.succeeded(attempt);
  }
}

function parseRole(role: string): Role {
  if (!(ROLES as readonly string[]).includes(role)) throw invalidField('role', `must be one of ${ROLES.join(', ')}`);
  return role as Role;
}
