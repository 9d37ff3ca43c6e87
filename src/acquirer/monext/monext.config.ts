// A contract's Monext credentials: what the operator gives (admin API, `motu contracts update --monext-…`), checked,
// sealed at rest with the SecretBox, and opened only to call Monext. The access key is never shown again: a contract
// answers `accessKeySet: true` instead.
import { invalidField } from '../../shared/errors.js';
import type { SecretBox } from '../../shared/secret-box.js';

export type MonextEnvironment = 'homologation' | 'production';

export interface MonextCredentials {
  /** Monext's merchant identifier: the user of HTTP Basic authentication. */
  merchantId: string;
  /** The access key generated in Monext's administration centre: the password of HTTP Basic authentication. */
  accessKey: string;
  /** The point of sale (`pointOfSaleReference` of every session). */
  pointOfSaleReference: string;
  /** The card contract number at Monext (`paymentMethodIDs` / `paymentMethodId`). */
  contractNumber: string;
  environment: MonextEnvironment;
}

/** Monext's Retail API, REST v1, per environment. */
export const MONEXT_API_URLS: Record<MonextEnvironment, string> = {
  homologation: 'https://api-sandbox.retail.monext.com',
  production: 'https://api.retail.monext.com',
};

/** Monext's secure widget (card fields, CB choice, 3-D Secure), per environment. */
export const MONEXT_WIDGET_URLS: Record<MonextEnvironment, { script: string; style: string; origin: string }> = {
  homologation: {
    origin: 'https://homologation-payment.cdn.payline.com',
    script: 'https://homologation-payment.cdn.payline.com/cdn/scripts/widget-min.js',
    style: 'https://homologation-payment.cdn.payline.com/cdn/styles/widget-min.css',
  },
  production: {
    origin: 'https://payment.cdn.payline.com',
    script: 'https://payment.cdn.payline.com/cdn/scripts/widget-min.js',
    style: 'https://payment.cdn.payline.com/cdn/styles/widget-min.css',
  },
};

/** Every origin the widget loads from or talks to (the hosted pages' and the SDK's documented CSP). */
export const MONEXT_CSP_ORIGINS: readonly string[] = [
  'https://homologation-payment.cdn.payline.com', 'https://payment.cdn.payline.com',
  'https://homologation-webpayment.payline.com', 'https://webpayment.payline.com',
  'https://api-sandbox.retail.monext.com', 'https://api.retail.monext.com',
];

/**
 * The Content-Security-Policy additions of a page that mounts Monext's widget (the hosted checkout and wallet pages
 * in live mode; the SDK's host page, docs/sdk.md): Monext's origins for scripts, styles, images and calls, and any
 * https frame and form target, since 3-D Secure shows the card issuer's own page (each bank its own domain).
 */
export function monextCsp(widgetOverride?: string): { sources: string[]; frames: string; forms: string } {
  const sources = [...MONEXT_CSP_ORIGINS];
  if (widgetOverride) sources.push(new URL(widgetOverride).origin);
  return { sources, frames: 'https:', forms: 'https:' };
}

export type MonextCredentialsPatch = Partial<MonextCredentials>;

const TEXT = /^[\x21-\x7e]{1,100}$/;

/** The credentials a patch leaves (merged over the current ones), checked field by field. */
export function mergeCredentials(current: MonextCredentials | null, patch: MonextCredentialsPatch): MonextCredentials {
  const merged = { ...(current ?? {}), ...stripUndefined(patch) } as Partial<MonextCredentials>;
  for (const field of ['merchantId', 'accessKey', 'pointOfSaleReference', 'contractNumber'] as const) {
    const value = merged[field];
    if (typeof value !== 'string' || !TEXT.test(value)) {
      throw invalidField(`monext.${field}`, value === undefined ? 'is required for a Monext contract' : 'must be 1 to 100 printable characters without spaces');
    }
  }
  const environment = merged.environment ?? 'homologation';
  if (environment !== 'homologation' && environment !== 'production') throw invalidField('monext.environment', 'must be homologation or production');
  return {
    merchantId: merged.merchantId!, accessKey: merged.accessKey!, pointOfSaleReference: merged.pointOfSaleReference!,
    contractNumber: merged.contractNumber!, environment,
  };
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export function sealCredentials(box: SecretBox, credentials: MonextCredentials): string {
  return box.seal(JSON.stringify({ monext: credentials }));
}

export function openCredentials(box: SecretBox, sealed: string | null): MonextCredentials | null {
  if (!sealed) return null;
  const parsed = JSON.parse(box.open(sealed)) as { monext?: MonextCredentials };
  return parsed.monext ?? null;
}

/** What a contract shows of its credentials: everything but the access key. */
export function credentialsView(credentials: MonextCredentials | null) {
  if (!credentials) return null;
  return {
    merchantId: credentials.merchantId, pointOfSaleReference: credentials.pointOfSaleReference,
    contractNumber: credentials.contractNumber, environment: credentials.environment, accessKeySet: true as const,
  };
}
