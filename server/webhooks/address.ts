import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';

/**
 * Where a webhook may not point (SPEC 9): loopback, private and link-local addresses, so a tenant
 * cannot make the server call its own network. Checked at creation and again at each delivery.
 */
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network": 0.0.0.0 reaches the host itself
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT: private in practice
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv6');

/** `::ffff:a.b.c.d` (also as `::ffff:7f00:1`) names an IPv4 address: judged as that address. */
function mappedIpv4(ip: string): string | undefined {
  const m = /^(?:0{0,4}:){0,5}(?:0{0,4}:)?ffff:(.+)$/i.exec(ip.replace(/^::/, '0:0:0:0:0:'));
  if (!m) return undefined;
  const tail = m[1]!;
  if (isIP(tail) === 4) return tail;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(tail);
  if (!hex) return undefined;
  const [hi, lo] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

export function isPrivateAddress(ip: string): boolean {
  const plain = ip.replace(/^\[|\]$/g, '');
  const family = isIP(plain);
  if (family === 4) return BLOCKED.check(plain, 'ipv4');
  if (family !== 6) return false;
  const v4 = mappedIpv4(plain);
  return v4 !== undefined ? BLOCKED.check(v4, 'ipv4') : BLOCKED.check(plain, 'ipv6');
}

/** A webhook URL as given, or why it is not one: only http and https. */
export function parseWebhookUrl(text: string): URL | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `"${text}" is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${text}: only http and https URLs are allowed`;
  return url;
}

export class PrivateAddressError extends Error {}

/**
 * The addresses a host resolves to, refused when any is private (a host with one public and one
 * private address could be made to reach the private one). An IP literal is its own address.
 */
export async function publicAddresses(hostname: string): Promise<{ address: string; family: number }[]> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true, verbatim: true });
  const bad = addresses.find((a) => isPrivateAddress(a.address));
  if (bad)
    throw new PrivateAddressError(
      `${hostname} is or resolves to a loopback, private or link-local address (${bad.address}) (WEBHOOK_ALLOW_PRIVATE=true allows it, for development)`,
    );
  return addresses;
}
