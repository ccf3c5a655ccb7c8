/**
 * IP addresses and ranges (docs/access-control.md, "Client address"): strict parsing, the
 * canonical spelling, the /64 an IPv6 host counts as, and the `TRUSTED_PROXIES` ranges. Parsing
 * and matching are done by `ipaddr.js` (https://github.com/whitequark/ipaddr.js); this module
 * only holds our rules on top of it.
 * @module
 */
import ipaddr from "ipaddr.js";

/** A parsed IPv4 or IPv6 address. */
export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * Parses one address, strictly: IPv4 only as four decimal parts (`192.0.2.7`, not `0x7f.1` or
 * `010.0.0.1`), IPv6 without a zone (`%eth0`). An IPv4-mapped IPv6 address (`::ffff:192.0.2.7`,
 * what a dual-stack socket reports for an IPv4 peer) is returned as its IPv4 address, so one host
 * has one spelling (RFC 4291 §2.5.5.2).
 * @returns the address, or `undefined` when `text` is not one
 */
export function parseAddress(text: string): IpAddress | undefined {
  if (text.includes(":")) {
    if (text.includes("%") || !ipaddr.IPv6.isValid(text)) return undefined;
    const v6 = ipaddr.IPv6.parse(text);
    return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
  }
  return ipaddr.IPv4.isValidFourPartDecimal(text) ? ipaddr.IPv4.parse(text) : undefined;
}

/**
 * The address limits and the refusal log count against: an IPv4 address as it is, an IPv6
 * address by its /64 (`2001:db8:1:2::/64`: the low 64 bits are the interface identifier,
 * RFC 4291 §2.5.1, which a host may change at will, RFC 8981; rotating within it must not
 * multiply budgets). An IPv4-mapped address counts as its IPv4 host. Text that is no address is
 * returned as it is.
 */
export function addressGroup(address: string): string {
  if (!address.includes(":")) return address;
  const a = parseAddress(address);
  if (!a) return address;
  if (a.kind() === "ipv4") return a.toString();
  const parts = (a as ipaddr.IPv6).parts;
  return `${new ipaddr.IPv6([...parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}

/** A set of address ranges (CIDR), matched against one address at a time. */
export class AddressRanges {
  #v4: [ipaddr.IPv4, number][] = [];
  #v6: [ipaddr.IPv6, number][] = [];

  /** @param ranges `[network, prefix length]` pairs as {@link parseAddressRanges} builds them */
  constructor(ranges: [IpAddress, number][]) {
    for (const [net, bits] of ranges) {
      if (net.kind() === "ipv4") this.#v4.push([net as ipaddr.IPv4, bits]);
      else this.#v6.push([net as ipaddr.IPv6, bits]);
    }
  }

  /** Number of ranges; 0 when none is configured. */
  get size(): number {
    return this.#v4.length + this.#v6.length;
  }

  /** True when `address` (parsed, or text) lies in one of the ranges; false for no address. */
  contains(address: IpAddress | string | undefined): boolean {
    const a = typeof address === "string" ? parseAddress(address) : address;
    if (!a) return false;
    if (a.kind() === "ipv4") return this.#v4.some((r) => (a as ipaddr.IPv4).match(r));
    return this.#v6.some((r) => (a as ipaddr.IPv6).match(r));
  }
}

/**
 * Parses a comma-separated list of addresses and CIDR ranges, IPv4 and IPv6
 * (`10.0.0.0/8, 192.0.2.7, 2001:db8::/32, ::1`); an address alone is a range of one (/32, /128).
 * An IPv4-mapped IPv6 range of /96 or longer is taken as the IPv4 range it maps.
 * @returns the ranges, their canonical spelling (`10.0.0.0/8`), and one sentence per bad entry
 *   (naming it by position and as written)
 */
export function parseAddressRanges(
  raw: string,
): { ranges: AddressRanges; entries: string[]; problems: string[] } {
  const pairs: [IpAddress, number][] = [];
  const entries: string[] = [];
  const problems: string[] = [];
  raw.split(",").forEach((part, i) => {
    const entry = part.trim();
    if (entry === "") return;
    const pair = parseRange(entry);
    if (!pair) {
      problems.push(
        `entry ${i + 1} ("${entry}") is not an IPv4 or IPv6 address or CIDR range ` +
          `(e.g. 10.0.0.0/8, 192.0.2.7, 2001:db8::/32)`,
      );
      return;
    }
    pairs.push(pair);
    entries.push(`${pair[0].toString()}/${pair[1]}`);
  });
  return { ranges: new AddressRanges(pairs), entries, problems };
}

function parseRange(entry: string): [IpAddress, number] | undefined {
  const slash = entry.indexOf("/");
  const host = slash < 0 ? entry : entry.slice(0, slash);
  const bitsText = slash < 0 ? undefined : entry.slice(slash + 1);
  if (host.includes("%") || (bitsText !== undefined && !/^\d{1,3}$/.test(bitsText))) {
    return undefined;
  }
  if (host.includes(":")) {
    if (!ipaddr.IPv6.isValid(host)) return undefined;
    const net = ipaddr.IPv6.parse(host);
    const bits = bitsText === undefined ? 128 : Number(bitsText);
    if (bits > 128) return undefined;
    if (net.isIPv4MappedAddress() && bits >= 96) return [net.toIPv4Address(), bits - 96];
    return [net, bits];
  }
  if (!ipaddr.IPv4.isValidFourPartDecimal(host)) return undefined;
  const bits = bitsText === undefined ? 32 : Number(bitsText);
  return bits > 32 ? undefined : [ipaddr.IPv4.parse(host), bits];
}
