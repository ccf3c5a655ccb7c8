/**
 * Keeps secrets out of the operations log (SPEC §1, §6; DESIGN §4): every event is checked for
 * every secret the process knows (API keys, the sFTP password and key, the market-platform key)
 * and each occurrence is replaced by `"********"` before the record is stored.
 *
 * Events quote request paths and other systems' error bodies (SPEC §6), which a careless caller
 * or a platform that echoes its request headers can fill with a secret; this is the last line
 * that makes "never written to the event log" hold whatever a message quotes.
 *
 * @example
 * const redactor = new Redactor(["proc-secret-0001-aaaaaaaa"]);
 * redactor.redact({ message: "GET /x/proc-secret-0001-aaaaaaaa refused" });
 * // → { message: "GET /x/******** refused" }
 * @module
 */

/** What a secret is replaced by. */
export const MASK = "********";

/** Secrets shorter than this are not searched for (they would mask ordinary words). */
const MIN_SECRET_LENGTH = 6;

/** A set of secrets and the function that masks them in a value. */
export class Redactor {
  #secrets: string[] = [];
  /** The secrets as they appear inside a JSON string literal (escapes applied). */
  #escaped: string[] = [];

  /** @param secrets initial secrets (more may be added with {@link Redactor.add}) */
  constructor(secrets: Iterable<string> = []) {
    for (const s of secrets) this.add(s);
  }

  /** Number of secrets known. */
  get size(): number {
    return this.#secrets.length;
  }

  /** Remembers a secret; values that are not strings or too short are ignored. */
  add(secret: unknown): void {
    if (typeof secret !== "string" || secret.length < MIN_SECRET_LENGTH) return;
    if (this.#secrets.includes(secret)) return;
    this.#secrets.push(secret);
    // Longest first, so a secret that contains another is masked whole.
    this.#secrets.sort((a, b) => b.length - a.length);
    this.#escaped = this.#secrets.map((s) => JSON.stringify(s).slice(1, -1));
  }

  /**
   * Returns `value` with every occurrence of every secret masked (strings, array items, object
   * keys and values, at any depth). Returns the same object when nothing was found.
   * @param json `JSON.stringify(value)` when the caller has it already (saves one stringify)
   */
  redact<T>(value: T, json?: string): T {
    if (!this.#secrets.length) return value;
    const text = json ?? JSON.stringify(value) ?? "";
    if (!this.#escaped.some((s) => text.includes(s))) return value;
    return this.#walk(value) as T;
  }

  #mask(s: string): string {
    let out = s;
    for (const secret of this.#secrets) {
      if (out.includes(secret)) out = out.split(secret).join(MASK);
    }
    return out;
  }

  #walk(v: unknown): unknown {
    if (typeof v === "string") return this.#mask(v);
    if (Array.isArray(v)) return v.map((x) => this.#walk(x));
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(
        Object.entries(v as Record<string, unknown>).map((
          [k, x],
        ) => [this.#mask(k), this.#walk(x)]),
      );
    }
    return v;
  }
}
