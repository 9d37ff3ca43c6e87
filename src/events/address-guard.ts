// SSRF guard: a live-mode webhook target must resolve to a public address, never a private, loopback,
// link-local, carrier-grade NAT, multicast or unspecified one. Checked when an endpoint is saved and again at
// each connection (the lookup below), so a DNS answer changed after registration cannot reach the inside.
import { BlockList, isIP } from 'node:net';
import dns from 'node:dns';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96]] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1]!, 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true;
}

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** Every address the host resolves to is public (an IP literal is checked as is). */
export async function resolvesToPublic(hostname: string): Promise<boolean> {
  const h = hostname.replace(/^\[|\]$/g, '');
  if (isIP(h)) return !isPrivateAddress(h);
  try {
    const addresses = await dns.promises.lookup(h, { all: true, verbatim: true });
    return addresses.length > 0 && addresses.every((a) => !isPrivateAddress(a.address));
  } catch {
    return false;
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A `lookup` for http.request that refuses private answers: the connection never opens to them. */
export function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, verbatim: true }, (err, address, family) => {
    if (err) return callback(err, address as string, family);
    const list = Array.isArray(address) ? address.map((a) => a.address) : [address as string];
    if (list.some(isPrivateAddress)) {
      const refused = Object.assign(new Error(`${hostname} resolves to a private address; refused`), { code: 'EADDRNOTPUBLIC' });
      return callback(refused, address as string, family);
    }
    callback(null, address as string, family);
  });
}
