// Option values as the commands read them: whole numbers, true/false, JSON, checked by the admin API's own schemas so
// that a command refuses exactly what its route refuses (VALIDATION_ERROR, exit 1).
import type { TSchema } from 'typebox';
import { schemaValidationError } from '../../http/errors.js';
import { bodyValidator } from '../../http/validation.js';
import { invalidField } from '../../shared/errors.js';

/** Commander's parsed options (camelCase keys: --statement-label is statementLabel). */
export type Flags = Record<string, unknown>;

export function int(raw: unknown, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^\d{1,15}$/.test(raw)) throw invalidField(`--${flag}`, 'must be a whole number');
  return Number(raw);
}

export function signedInt(raw: unknown, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^-?\d{1,15}$/.test(raw)) throw invalidField(`--${flag}`, 'must be a whole number');
  return Number(raw);
}

export function bool(raw: unknown, flag: string): boolean | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw invalidField(`--${flag}`, 'must be true or false');
}

/** A JSON object flag (`none` clears it). */
export function jsonFlag(raw: unknown, flag: string): unknown {
  if (raw === undefined) return undefined;
  if (raw === 'none') return null;
  try {
    return JSON.parse(String(raw)) as unknown;
  } catch {
    throw invalidField(`--${flag}`, 'must be JSON');
  }
}

/** Drops undefined entries, then validates with the same schema as the admin API route. */
export function checked<T>(schema: TSchema, input: Record<string, unknown>): T {
  const body = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  const validate = bodyValidator(schema);
  if (!validate(body)) throw schemaValidationError(validate.errors ?? [], 'body');
  return body as T;
}
