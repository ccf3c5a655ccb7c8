/**
 * Named API keys (docs/access-control.md, "Credentials"): lookup in constant time over every configured key.
 * @module
 */
import type { ApiKeyEntry, Scope } from "./types.ts";
import { impliedScopes, type Principal } from "./principal.ts";
import { createHash, timingSafeEqual } from "node:crypto";
import type { Buffer } from "node:buffer";

interface Digested {
  entry: ApiKeyEntry;
  digest: Buffer;
  /** The principal of this key, built once (shared by every request; read-only). */
  principal: Principal;
}

/** SHA-256 of a secret's UTF-8 bytes (node:crypto; 32 bytes). */
const sha256 = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();

/** Digests of recently presented keys kept at the most. */
const DIGEST_MEMO = 1024;

/**
 * The configured keys, pre-digested. {@link KeyRing.match} hashes the presented key (SHA-256)
 * and compares it with every configured digest in constant time, never stopping early, so the
 * time taken tells nothing about which key matched or how much of it.
 *
 * The digest of a presented key is remembered (the last {@link DIGEST_MEMO} keys presented,
 * valid or not), so a returning caller is not hashed again (SHA-256 costs about 2 µs a request
 * on node:crypto). Only the hashing is remembered, never the decision: every request still
 * compares against every configured digest.
 */
export class KeyRing {
  #keys: Digested[];
  #digests = new Map<string, Buffer>();

  /** @param entries every configured key, both scopes */
  constructor(entries: ApiKeyEntry[]) {
    this.#keys = entries.map((entry) => ({
      entry,
      digest: sha256(entry.secret),
      principal: Object.freeze({
        caller: entry.name,
        credential_type: "api_key",
        scopes: new Set(impliedScopes(entry.scope)),
      }),
    }));
  }

  /** Number of configured keys. */
  get size(): number {
    return this.#keys.length;
  }

  /** Distinct caller names per scope (for the status endpoint; no secrets). */
  callersPerScope(): Record<Scope, number> {
    const count = (s: Scope) =>
      new Set(this.#keys.filter((k) => k.entry.scope === s).map((k) => k.entry.name)).size;
    return { external: count("external"), process: count("process") };
  }

  /** Configured keys (secrets) per scope; a caller in rotation holds two (no secrets). */
  keysPerScope(): Record<Scope, number> {
    const count = (s: Scope) => this.#keys.filter((k) => k.entry.scope === s).length;
    return { external: count("external"), process: count("process") };
  }

  /** Secrets of the `process` keys, sorted; input of the stream-token key (docs/access-control.md, "Stream tokens"). */
  processSecrets(): string[] {
    return this.#keys.filter((k) => k.entry.scope === "process").map((k) => k.entry.secret)
      .sort();
  }

  /**
   * The principal for a presented key, or `undefined` when no configured key matches.
   * @param presented the `X-API-Key` value (already checked to be ASCII)
   * @returns a shared, frozen principal per configured key
   */
  match(presented: string): Principal | undefined {
    let digest = this.#digests.get(presented);
    if (!digest) {
      digest = sha256(presented);
      if (this.#digests.size >= DIGEST_MEMO) {
        this.#digests.delete(this.#digests.keys().next().value!);
      }
      this.#digests.set(presented, digest);
    }
    let found: Principal | undefined;
    for (const k of this.#keys) {
      // Every digest is compared; no early exit.
      if (timingSafeEqual(digest, k.digest) && !found) found = k.principal;
    }
    return found;
  }
}
