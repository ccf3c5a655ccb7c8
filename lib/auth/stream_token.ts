/**
 * Stream tokens (docs/access-control.md, "Stream tokens"): `<expiry-unix-seconds>.<base64url HMAC-SHA256>`
 * over `"stream:" + expiry`. The key is derived from the sorted process-key secrets, so every
 * replica with the same keys accepts the others' tokens; with no process key (OIDC only) it is a
 * random 32-byte secret created once and kept in KV.
 *
 * A token expiring later than now + {@link STREAM_TOKEN_TTL_SECONDS} + {@link CLOCK_LEEWAY_SECONDS}
 * is refused even when its signature is right: no replica issues one, so it was made by someone
 * holding the key (who could otherwise sign a token for the year 2100); RFC 8725 §3.10.
 * @module
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { Buffer } from "node:buffer";
import { type Clock, CLOCK_LEEWAY_SECONDS } from "../clock.ts";
import { retryKv } from "../store/kv.ts";
import { KEYS } from "../store/keys.ts";

/** Lifetime of a stream token in seconds (docs/access-control.md, "Stream tokens"). */
export const STREAM_TOKEN_TTL_SECONDS = 300;

/**
 * Verdict on a presented stream token: `ok`; `expired` (expiry passed); `invalid` (form or
 * signature wrong); `beyond_lifetime` (correctly signed, but expiring later than now +
 * {@link STREAM_TOKEN_TTL_SECONDS} + {@link CLOCK_LEEWAY_SECONDS}, which no replica issues).
 */
export type StreamTokenVerdict = "ok" | "expired" | "invalid" | "beyond_lifetime";

const TOKEN_RE = /^(\d{10,12})\.([A-Za-z0-9_-]{43})$/;
const KV_SECRET_KEY = KEYS.streamTokenSecret;

/** Issues and checks stream tokens with one HMAC key. */
export class StreamTokens {
  #key: Uint8Array;
  #clock: Clock;

  private constructor(key: Uint8Array, clock: Clock) {
    this.#key = key;
    this.#clock = clock;
  }

  /**
   * Derives the key from the process secrets, or loads/creates the random KV secret when there
   * are none.
   * @param processSecrets secrets of the `process` keys
   */
  static async create(
    processSecrets: string[],
    kv: Deno.Kv,
    clock: Clock,
  ): Promise<StreamTokens> {
    if (processSecrets.length) {
      const key = createHmac("sha256", "scheduling-bridge/stream-token/v1")
        .update([...processSecrets].sort().join("\n"))
        .digest();
      return new StreamTokens(key, clock);
    }
    const existing = await kv.get<Uint8Array>(KV_SECRET_KEY);
    if (existing.value) return new StreamTokens(existing.value, clock);
    const fresh = new Uint8Array(randomBytes(32));
    const res = await retryKv(
      "create the stream-token secret",
      () =>
        kv.atomic().check({ key: KV_SECRET_KEY, versionstamp: null }).set(KV_SECRET_KEY, fresh)
          .commit(),
    );
    if (res.ok) return new StreamTokens(fresh, clock);
    // Another replica created it first: use theirs.
    return new StreamTokens((await kv.get<Uint8Array>(KV_SECRET_KEY)).value!, clock);
  }

  /**
   * The signing key as text (hex, base64, base64url): secrets the redactor masks wherever they
   * might appear (docs/access-control.md, "Secrets").
   */
  keyForms(): string[] {
    const key = Buffer.from(this.#key);
    return [key.toString("hex"), key.toString("base64"), key.toString("base64url")];
  }

  #sign(expiry: number): string {
    return createHmac("sha256", this.#key).update(`stream:${expiry}`).digest("base64url");
  }

  /** A new token valid for {@link STREAM_TOKEN_TTL_SECONDS} from now. */
  issue(): { token: string; expires_in: number } {
    const expiry = Math.floor(this.#clock.now() / 1000) + STREAM_TOKEN_TTL_SECONDS;
    return { token: `${expiry}.${this.#sign(expiry)}`, expires_in: STREAM_TOKEN_TTL_SECONDS };
  }

  /**
   * Checks a presented token: form, signature (constant time), then its expiry against now
   * (seconds): not passed, and not later than now + {@link STREAM_TOKEN_TTL_SECONDS} +
   * {@link CLOCK_LEEWAY_SECONDS}.
   */
  verify(token: string): StreamTokenVerdict {
    const m = TOKEN_RE.exec(token);
    if (!m) return "invalid";
    const expiry = Number(m[1]);
    const want = Buffer.from(this.#sign(expiry));
    const got = Buffer.from(m[2]);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return "invalid";
    const now = this.#clock.now();
    if (expiry * 1000 > now + (STREAM_TOKEN_TTL_SECONDS + CLOCK_LEEWAY_SECONDS) * 1000) {
      return "beyond_lifetime";
    }
    return expiry * 1000 > now ? "ok" : "expired";
  }
}
