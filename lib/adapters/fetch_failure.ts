/**
 * Why a `fetch` failed. Deno's `fetch` rejects with `TypeError("fetch failed")` whatever went
 * wrong; the reason is only in its `cause` (Deno 2.9: an `Error` whose message is
 * `error sending request for url (<url>): client error (Connect): <reason>`, the reason being
 * rustls' or the OS's text). See https://docs.deno.com/api/web/~/fetch and
 * https://developer.mozilla.org/en-US/docs/Web/API/Window/fetch#exceptions.
 * @module
 */

/** A failed `fetch`, classified. */
export interface FetchFailure {
  /**
   * `tls`: the TLS handshake failed for a reason that repeats on every attempt until someone
   * changes a certificate or the configuration (untrusted or expired certificate, wrong name,
   * no common protocol version, a peer that does not speak TLS at all) — final, retrying only
   * delays the answer. `network`: anything else (refused, reset, DNS, timeout, a connection
   * closed during the handshake) — may pass, worth retrying.
   */
  kind: "tls" | "network";
  /**
   * The deepest cause without Deno's wrapper text, e.g.
   * `invalid peer certificate: UnknownIssuer` or
   * `tcp connect error: Connection refused (os error 111)`.
   */
  reason: string;
}

/** Wrapper text Deno (hyper) puts before the reason; a URL never contains a space. */
const WRAPPERS = [/^error sending request for url \(.*?\): /, /^client error \(\w+\): /];

/**
 * rustls' messages of handshake failures that a retry cannot fix (RFC 8446 §6.2 alerts, §4.4.2
 * certificate checks): `invalid peer certificate: …` (UnknownIssuer, BadSignature, expired, not
 * valid for name), `received fatal alert: …` (the peer refused us, e.g. HandshakeFailure,
 * ProtocolVersion, CertificateRequired), `received corrupt message …` (the peer does not speak
 * TLS, e.g. plain HTTP), `peer is incompatible`, `peer misbehaved`, `peer sent no certificates`.
 * `tls handshake eof` (connection closed mid-handshake) is deliberately not here: it is what a
 * restarting server or a dropping proxy looks like.
 */
const TLS = [
  /^invalid peer certificate\b/,
  /^invalid certificate revocation list\b/,
  /^received fatal alert\b/,
  /^received corrupt message\b/,
  /^received unexpected (handshake )?message\b/,
  /^peer is incompatible\b/,
  /^peer misbehaved\b/,
  /^peer sent no certificates\b/,
  /^peer doesn't support any known protocol\b/,
];

/**
 * Walks `err` and its `cause` chain (at most 10 links, cycles stopped) and classifies it.
 * @returns `tls` with the first cause that is a TLS failure (see {@link FetchFailure.kind}),
 *   else `network` with the deepest cause's message
 */
export function classifyFetchFailure(err: unknown): FetchFailure {
  const reasons: string[] = [];
  const seen = new Set<unknown>();
  let e: unknown = err;
  while (e !== undefined && e !== null && !seen.has(e) && seen.size < 10) {
    seen.add(e);
    const text = e instanceof Error ? e.message : typeof e === "string" ? e : "";
    const reason = WRAPPERS.reduce((t, w) => t.replace(w, ""), text.trim());
    if (reason) reasons.push(reason);
    e = typeof e === "object" ? (e as { cause?: unknown }).cause : undefined;
  }
  const tls = reasons.find((r) => TLS.some((p) => p.test(r)));
  if (tls) return { kind: "tls", reason: tls };
  return { kind: "network", reason: reasons.at(-1) ?? "unknown error" };
}
