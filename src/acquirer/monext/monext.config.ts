// A contract's Monext credentials: what the operator gives (admin API, `motu contracts update --monext-…`), checked,
// sealed at rest with the SecretBox, and opened only to call Monext. The access key is never shown again: a contract
// answers `accessKeySet: true` instead.
import type { WidgetCsp } from '../../http/csp.js';
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

/**
 * Every origin Monext's widget loads from or talks to, one list per environment: its CDN (the script and style),
 * Monext's payment hosts (the widget's own calls, its fonts, images and frames: Monext/monext-magento2
 * etc/csp_whitelist.xml allows `payment.payline.com`, `payment-2.payline.com` and their `homologation-` twins, with the
 * CDN, for script, style, img, connect, frame and font), the web payment pages and the Retail API.
 */
export const MONEXT_ORIGINS: Record<MonextEnvironment, readonly string[]> = {
  homologation: [
    'https://homologation-payment.cdn.payline.com', 'https://homologation-payment.payline.com', 'https://homologation-payment-2.payline.com',
    'https://homologation-webpayment.payline.com', 'https://api-sandbox.retail.monext.com',
  ],
  production: [
    'https://payment.cdn.payline.com', 'https://payment.payline.com', 'https://payment-2.payline.com',
    'https://webpayment.payline.com', 'https://api.retail.monext.com',
  ],
};

/** Fonts the widget may take from a public CDN besides Monext's hosts (the same csp_whitelist.xml, font-src). */
export const MONEXT_FONT_ORIGINS: readonly string[] = ['https://maxcdn.bootstrapcdn.com'];

/**
 * What a page that mounts Monext's widget adds to its Content-Security-Policy (the hosted checkout and wallet pages in
 * live mode; the SDK's host page, docs/sdk.md, section 4): the environments' origins for scripts, styles, fonts,
 * images, calls and frames, inline styles (the widget styles its elements inline), and any https frame and form
 * target, since 3-D Secure shows the card issuer's own page (each bank its own domain). `widgetOverride`: the origin of
 * a stand-in widget (MOTU_MONEXT_WIDGET_URL).
 */
export function monextCsp(environments: readonly MonextEnvironment[] = ['homologation', 'production'], widgetOverride?: string): WidgetCsp {
  const origins = [...new Set(environments.flatMap((e) => MONEXT_ORIGINS[e]))];
  if (widgetOverride) origins.push(new URL(widgetOverride).origin);
  return {
    'script-src': origins, 'style-src': ["'unsafe-inline'", ...origins], 'img-src': origins, 'connect-src': origins,
    'font-src': [...origins, ...MONEXT_FONT_ORIGINS], 'frame-src': [...origins, 'https:'], 'form-action': ['https:'],
  };
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
