// SSRF guard: where Motu may send a webhook (registered endpoints and payments' notificationUrl), in both modes.
// Never to a private, link-local, shared (carrier-grade NAT), multicast, reserved or unspecified address; to this
// machine (loopback) only in test mode and only while the operator allows it (MOTU_ALLOW_LOOPBACK_URLS), for local
// development. An address written in the URL is refused when the URL is given; a host name is checked again at each
// connection (guardedLookup), so a DNS answer changed after registration cannot reach the inside either.
import { BlockList, isIP } from 'node:net';
import dns from 'node:dns';
import type { Mode } from '../modules/merchants/merchants.table.js';

export interface AddressPolicy {
  /** Loopback targets (127.0.0.0/8, ::1, localhost) are allowed. */
  allowLoopback: boolean;
}

/** The one rule for both modes: loopback only for test keys, and only when the operator allows it. */
export function addressPolicy(mode: Mode, allowLoopbackUrls: boolean): AddressPolicy {
  return { allowLoopback: mode === 'test' && allowLoopbackUrls };
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
// IPv4-mapped addresses (::ffff:a.b.c.d) are matched against the IPv4 rules by BlockList itself; the IPv4-compatible
// (::a.b.c.d, deprecated), NAT64 and 6to4 forms embed an IPv4 address and are refused whole.
for (const [net, prefix] of [
  ['::', 96], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001:db8::', 32], ['2002::', 16],
  ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

function family(address: string): 'ipv4' | 'ipv6' | undefined {
  const f = isIP(address);
  return f === 4 ? 'ipv4' : f === 6 ? 'ipv6' : undefined;
}

/** Why Motu does not send to this IP address under `policy`, or undefined when it may. */
export function refusedAddress(address: string, policy: AddressPolicy): string | undefined {
  const f = family(address);
  if (!f) return 'is not an IP address';
  if (loopback.check(address, f)) return policy.allowLoopback ? undefined : 'is this machine (loopback)';
  if (blocked.check(address, f)) return 'is a private, link-local, shared or reserved address';
  return undefined;
}

/** localhost and *.localhost always name this machine (RFC 6761), whatever DNS says. */
export function isLoopbackName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}

/**
 * Why a webhook target URL is refused when it is given, or undefined. HTTPS only; plain http only to this machine
 * when loopback is allowed. Only an address written in the URL is judged here; a host name is judged at connection.
 */
export function targetProblem(raw: string, policy: AddressPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use https';
  if (!url.hostname) return 'must have a host';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const isLoopback = isLoopbackName(host) || (family(host) !== undefined && loopback.check(host, family(host)!));
  if (isLoopback && !policy.allowLoopback) {
    return url.protocol === 'http:'
      ? 'must use https (plain http to this machine only with a test key while MOTU_ALLOW_LOOPBACK_URLS is on)'
      : 'must not point to this machine (loopback) outside test mode with MOTU_ALLOW_LOOPBACK_URLS on';
  }
  if (url.protocol === 'http:' && !isLoopback) return 'must use https';
  if (family(host)) {
    const refused = refusedAddress(host, policy);
    if (refused) return `must not point to ${host}: it ${refused}`;
  }
  return undefined;
}

/** Every address the host resolves to is allowed (an IP literal is checked as is). */
export async function resolvesToAllowed(hostname: string, policy: AddressPolicy): Promise<boolean> {
  const h = hostname.replace(/^\[|\]$/g, '');
  if (family(h)) return refusedAddress(h, policy) === undefined;
  if (isLoopbackName(h)) return policy.allowLoopback;
  try {
    const addresses = await dns.promises.lookup(h, { all: true, verbatim: true });
    return addresses.length > 0 && addresses.every((a) => refusedAddress(a.address, policy) === undefined);
  } catch {
    return false;
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A `lookup` for http.request that refuses answers the policy forbids: the connection never opens to them. */
export function guardedLookup(policy: AddressPolicy) {
  return function lookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
    dns.lookup(hostname, { ...options, verbatim: true }, (err, address, fam) => {
      if (err) return callback(err, address as string, fam);
      const list = Array.isArray(address) ? address.map((a) => a.address) : [address as string];
      if (list.some((a) => refusedAddress(a, policy) !== undefined) || (isLoopbackName(hostname) && !policy.allowLoopback)) {
        const refused = Object.assign(new Error(`refused: ${hostname} resolves to an address Motu does not send to`), { code: 'EADDRNOTALLOWED' });
        return callback(refused, address as string, fam);
      }
      callback(null, address as string, fam);
    });
  };
}
