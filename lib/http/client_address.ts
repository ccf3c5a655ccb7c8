/**
 * Who the client of a request is (docs/access-control.md, "Client address"): the socket peer,
 * unless the peer is one of the `TRUSTED_PROXIES`; then the right-most address of the proxy
 * headers that is not itself trusted (RFC 7239 §5.2, §8.1). Headers from a peer that is not
 * trusted are never read.
 * @module
 */
import type { AddressRanges } from "../net/addresses.ts";
import { parseAddress } from "../net/addresses.ts";
import { forwardedHops, type Hops, xForwardedForHops } from "./forwarded.ts";

/**
 * The client address of a request from `peer`.
 *
 * - `peer` not trusted (or no ranges configured): `peer`, whatever the headers say.
 * - `peer` trusted: `Forwarded` and `X-Forwarded-For` are each walked from the right; every hop
 *   that is trusted is passed over, the first one that is not is the client. A hop that names no
 *   address (`unknown`, an obfuscated identifier) ends the walk at the trusted hop that reported
 *   it; a malformed header gives the peer; one naming only trusted hops, the left-most of them.
 * - When both headers are present and name different clients, one of them was written by
 *   somebody else than the proxy (a proxy that appends only one of them passes the other on as
 *   the client sent it): then the peer itself, so that a forged header buys nothing.
 *
 * @param peer the socket peer's address as `Deno.serve` reports it
 * @param headers the request's headers
 * @param trusted the `TRUSTED_PROXIES` ranges
 * @returns an address in canonical spelling, or `peer` as given
 */
export function resolveClient(peer: string, headers: Headers, trusted: AddressRanges): string {
  const p = parseAddress(peer);
  if (!p || !trusted.contains(p)) return peer;
  const forwarded = headers.get("forwarded");
  const xff = headers.get("x-forwarded-for");
  const a = forwarded === null ? undefined : walk(p.toString(), forwardedHops(forwarded), trusted);
  const b = xff === null ? undefined : walk(p.toString(), xForwardedForHops(xff), trusted);
  if (a !== undefined && b !== undefined) return a === b ? a : peer;
  return a ?? b ?? peer;
}

function walk(peer: string, hops: Hops | undefined, trusted: AddressRanges): string {
  if (!hops) return peer;
  let current = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i];
    if (hop === undefined) return current;
    if (!trusted.contains(hop)) return hop;
    current = hop;
  }
  return current;
}

/**
 * Hono's `c.env` for a request served by `Deno.serve` (`AppEnv["Bindings"]`): the peer and the
 * client address, each worked out only when asked (failed authentication, the audit), at most
 * once per request. With no `TRUSTED_PROXIES` the client is the peer and no header is read.
 */
export class ServeBindings {
  #info: Deno.ServeHandlerInfo;
  #req: Request;
  #trusted: AddressRanges | undefined;
  #client: string | undefined;

  /**
   * @param info `Deno.serve`'s handler info
   * @param req the request (its proxy headers)
   * @param trusted the `TRUSTED_PROXIES` ranges; `undefined` when none is configured
   */
  constructor(info: Deno.ServeHandlerInfo, req: Request, trusted: AddressRanges | undefined) {
    this.#info = info;
    this.#req = req;
    this.#trusted = trusted;
  }

  /** The socket peer. */
  get remoteAddr(): Deno.NetAddr {
    return this.#info.remoteAddr as Deno.NetAddr;
  }

  /** The client address (see {@link resolveClient}). */
  get client(): string {
    if (this.#client === undefined) {
      const peer = this.remoteAddr.hostname;
      this.#client = this.#trusted ? resolveClient(peer, this.#req.headers, this.#trusted) : peer;
    }
    return this.#client;
  }
}
