// Which URLs a session accepts. Return URLs send a customer's browser somewhere; the notification URL
// receives our signed POSTs. Both must be HTTPS; in test mode, when the operator allows it
// (MOTU_ALLOW_LOOPBACK_URLS), plain http to this machine (localhost, 127.0.0.1, [::1]) is accepted too.
// The notification URL is a webhook target: it follows the address rules of webhook endpoints
// (src/events/address-guard.ts), so it never names a private or reserved address.
// Return URLs may also use a mobile app's own scheme (myapp://…), never a scheme that runs or reads
// something in the browser itself.
import { addressPolicy, targetProblem } from '../../events/address-guard.js';
import type { Mode } from '../merchants/merchants.table.js';

/** Schemes that execute code, read local data or leave the web: never a return URL. */
const FORBIDDEN_SCHEMES = new Set([
  'javascript', 'data', 'file', 'vbscript', 'blob', 'about', 'filesystem', 'view-source', 'intent',
  'ftp', 'ws', 'wss', 'mailto', 'tel', 'sms', 'chrome', 'resource', 'jar',
]);

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export interface UrlPolicy {
  mode: Mode;
  allowLoopbackUrls: boolean;
}

/** Why `raw` is not acceptable, or undefined when it is. */
export function urlProblem(raw: string, kind: 'return' | 'notification', policy: UrlPolicy): string | undefined {
  const schemeMatch = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(raw);
  if (!schemeMatch) return 'must be an absolute URL';
  const scheme = schemeMatch[1].toLowerCase();
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (/\s/.test(raw)) return 'must not contain spaces';
  if (url.username || url.password) return 'must not carry credentials';
  if (kind === 'notification') return targetProblem(raw, addressPolicy(policy.mode, policy.allowLoopbackUrls));
  if (scheme === 'https') return url.hostname ? undefined : 'must have a host';
  if (scheme === 'http') {
    const loopback = LOOPBACK_HOSTS.has(url.hostname);
    if (loopback && policy.allowLoopbackUrls && policy.mode === 'test') return undefined;
    return loopback && policy.mode === 'test'
      ? 'must use https (http to localhost is disabled by MOTU_ALLOW_LOOPBACK_URLS)'
      : 'must use https';
  }
  if (FORBIDDEN_SCHEMES.has(scheme)) return `must not use the ${scheme}: scheme`;
  // An app scheme: myapp://return, com.example.app:/callback.
  return undefined;
}
