/**
 * The proxy headers that name a client (docs/access-control.md, "Client address"): `Forwarded`
 * (RFC 7239) and the older `X-Forwarded-For`. Each is read as the list of hops it names, left
 * (furthest) to right (nearest); which hop is the client is decided in `client_address.ts`.
 *
 * An entry is an address in canonical spelling, or `undefined` for a hop that names no address:
 * `unknown`, an obfuscated identifier (`_hidden`, RFC 7239 §6.2-6.3), an element without `for=`,
 * or anything else that is no address. A header that does not follow its grammar at all is
 * `undefined` as a whole.
 * @module
 */
import { parseAddress } from "../net/addresses.ts";

/** A header's hops, left to right; `undefined` entries name no address. */
export type Hops = (string | undefined)[];

/** RFC 7230 §3.2.6 `tchar`, one or more. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * The `for=` hops of a `Forwarded` header (RFC 7239 §4): elements separated by `,`, pairs by
 * `;`, values tokens or quoted strings (`for="[2001:db8::1]:4711"`). Whitespace around `,` and
 * `;` is tolerated. A parameter given twice in one element, a value that is neither token nor
 * well-formed quoted string, or a pair without `=` makes the whole header malformed.
 * @param header the header's value (several header lines joined by `, `, as `Headers.get` does)
 * @returns the hops, or `undefined` when the header is malformed or names no element
 */
export function forwardedHops(header: string): Hops | undefined {
  const hops: Hops = [];
  let i = 0;
  const n = header.length;
  const skipSpace = () => {
    while (i < n && (header[i] === " " || header[i] === "\t")) i++;
  };
  let element = new Set<string>();
  let forValue: string | undefined;
  let pairs = 0;
  const endElement = () => {
    if (pairs > 0) hops.push(forValue === undefined ? undefined : nodeAddress(forValue));
    element = new Set();
    forValue = undefined;
    pairs = 0;
  };
  while (true) {
    skipSpace();
    if (i >= n) break;
    if (header[i] === ",") {
      endElement();
      i++;
      continue;
    }
    if (header[i] === ";") {
      i++;
      continue;
    }
    const eq = header.indexOf("=", i);
    if (eq < 0) return undefined;
    const name = header.slice(i, eq).toLowerCase();
    if (!TOKEN.test(name) || element.has(name)) return undefined;
    element.add(name);
    i = eq + 1;
    let value: string;
    if (header[i] === '"') {
      value = "";
      i++;
      while (i < n && header[i] !== '"') {
        if (header[i] === "\\") i++;
        if (i >= n) return undefined;
        const code = header.charCodeAt(i);
        if (code < 0x20 && code !== 0x09) return undefined;
        value += header[i++];
      }
      if (i >= n) return undefined; // no closing quote
      i++;
    } else {
      const start = i;
      while (i < n && !" \t,;".includes(header[i])) i++;
      value = header.slice(start, i);
      if (!TOKEN.test(value)) return undefined;
    }
    pairs++;
    if (name === "for") forValue = value;
    skipSpace();
    if (i < n && header[i] !== "," && header[i] !== ";") return undefined;
  }
  endElement();
  return hops.length ? hops : undefined;
}

/**
 * The hops of an `X-Forwarded-For` header: addresses separated by `,`. An IPv6 address may be
 * bracketed, and an address may carry a port (`192.0.2.7:4711`, `[2001:db8::1]:4711`), as some
 * proxies write them.
 * @returns the hops, or `undefined` when the header holds nothing
 */
export function xForwardedForHops(header: string): Hops | undefined {
  if (header.trim() === "") return undefined;
  return header.split(",").map((item) => nodeAddress(item.trim()));
}

/**
 * The address of one node (RFC 7239 §6): `192.0.2.7`, `192.0.2.7:4711`, `[2001:db8::1]`,
 * `[2001:db8::1]:4711`, canonical; `undefined` for `unknown`, an obfuscated identifier or
 * anything that is no address. A bare IPv6 address (not allowed in `Forwarded`, common in
 * `X-Forwarded-For`) is accepted too.
 */
export function nodeAddress(node: string): string | undefined {
  let host = node;
  if (node.startsWith("[")) {
    const close = node.indexOf("]");
    if (close < 0) return undefined;
    const rest = node.slice(close + 1);
    if (rest !== "" && !/^:\d{1,5}$/.test(rest)) return undefined;
    host = node.slice(1, close);
    if (!host.includes(":")) return undefined;
  } else if (/^[0-9.]+:\d{1,5}$/.test(node)) {
    host = node.slice(0, node.indexOf(":"));
  }
  return parseAddress(host)?.toString();
}
