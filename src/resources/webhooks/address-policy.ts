import ipaddr from 'ipaddr.js';

// Which addresses a webhook request may connect to (src/resources/webhooks/outbound.ts resolves the host and checks every
// address it resolves to here): public unicast only, or private ranges too when WEBHOOK_ALLOW_PRIVATE_NETWORKS is
// set for development; the cloud metadata and container credential addresses never.

/**
 * Addresses that are never a webhook receiver, allowPrivateNetworks or not. 169.254.169.254 (AWS, GCP, Azure,
 * OpenStack) is link-local and fd00:ec2::254 (AWS IPv6) unique-local and 100.100.100.200 (Alibaba)
 * carrier-grade NAT, so the range check refuses them anyway; they are listed so that the flag does not let
 * them through and the message says what they are. 169.254.170.2 is the container credentials endpoint (AWS ECS
 * task roles, also used by other container platforms), link-local like the first. 168.63.129.16 (Azure's wire server) is a public unicast
 * address that only answers from inside Azure, so nothing else would catch it.
 */
const METADATA_ADDRESSES = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', '168.63.129.16', 'fd00:ec2::254']);

/**
 * Special-purpose blocks ipaddr.js (1.x) calls 'unicast' although they are not reachable public hosts. Small
 * on purpose: the rest of the IANA special-purpose registry is covered by ipaddr's own ranges.
 */
const EXTRA_FORBIDDEN: Array<[ipaddr.IPv4 | ipaddr.IPv6, number, string]> = [
  [ipaddr.parse('198.18.0.0'), 15, 'benchmarking'],
  // ::a.b.c.d, the deprecated IPv4-compatible form: some stacks still route it to the IPv4 address.
  [ipaddr.parse('::'), 96, 'IPv4-compatible'],
  [ipaddr.parse('64:ff9b:1::'), 48, 'IPv4-translation'],
  [ipaddr.parse('100::'), 64, 'discard-only'],
  [ipaddr.parse('fec0::'), 10, 'site-local'],
];

/** How the address classes read in a refusal: "the host resolves to a <label> address (10.0.0.5)". */
const RANGE_LABELS: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'private',
  reserved: 'reserved',
  uniqueLocal: 'unique-local (private IPv6)',
  rfc6145: 'IPv4-translation',
  rfc6052: 'IPv4-translation',
  '6to4': '6to4 tunnel',
  teredo: 'Teredo tunnel',
};

/**
 * The class of an IP address as used in refusals: 'public' for a public unicast address (allowed), 'cloud
 * metadata' for the metadata services, otherwise a label such as 'private', 'loopback', 'link-local'. IPv4-mapped
 * IPv6 addresses (::ffff:127.0.0.1) are classified as the IPv4 address they carry: that is where they connect.
 */
export function addressClass(address: string): string {
  if (!ipaddr.isValid(address)) return 'invalid';
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  if (METADATA_ADDRESSES.has(ip.toNormalizedString()) || METADATA_ADDRESSES.has(ip.toString())) return 'cloud metadata';
  const range = ip.range();
  if (range !== 'unicast') return RANGE_LABELS[range] ?? range;
  for (const [network, bits, label] of EXTRA_FORBIDDEN) {
    if (network.kind() === ip.kind() && (ip as ipaddr.IPv6).match(network as ipaddr.IPv6, bits)) return label;
  }
  return 'public';
}

/** Which non-public addresses webhook URLs may reach (WebhookSettings: allowPrivateNetworks, allowLoopback). */
export interface AddressPolicy {
  allowPrivateNetworks: boolean;
  allowLoopback: boolean;
}

/** Whether the policy lets us connect to an address of this class. */
export function classAllowed(cls: string, policy: AddressPolicy): boolean {
  if (cls === 'public') return true;
  if (cls === 'cloud metadata' || cls === 'invalid') return false;
  if (cls === 'loopback' && policy.allowLoopback) return true;
  return policy.allowPrivateNetworks;
}
