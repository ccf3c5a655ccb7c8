/**
 * The one redaction step every outward text passes (docs/access-control.md, "Secrets"): HTTP
 * answers, stored events, process-log lines and the messages of errors that quote a foreign
 * system. No configured secret may appear there whole or as any part of {@link LEAK_LENGTH} (8)
 * or more characters; every such part is replaced by {@link MASK}. Masking comes first and
 * cutting to length after ({@link Redactor.text}), so a secret that straddles a cut cannot
 * survive in part.
 *
 * Secrets are looked for as they are, as they appear inside a JSON string literal (escapes
 * applied) and URL-encoded. A text is scanned once with a rolling hash over every window of 8
 * characters; a window whose hash is in the secrets' filter is compared with the secrets' parts,
 * so the cost is one pass over the text whatever the number of secrets. Texts found clean are
 * remembered (a bounded set, emptied when a secret is added), so an answer served again and
 * again is not scanned again.
 *
 * @example
 * const redactor = new Redactor(["proc-secret-0001-aaaaaaaa"]);
 * redactor.text("GET /x/proc-secret-0001-aaaaaaaa refused"); // "GET /x/******** refused"
 * redactor.text("key starts proc-secret-00"); // "key starts ********"
 * @module
 */

/** What a secret, or a part of one, is replaced by. */
export const MASK = "********";

/** Shortest part of a secret that is masked where it appears (the rule's 8 characters). */
export const LEAK_LENGTH = 8;

/**
 * Secrets shorter than this are not searched for at all (they would mask ordinary words);
 * those of 6 or 7 characters are masked only where they appear whole. Third-party secrets set
 * through the configuration have at least {@link LEAK_LENGTH} characters, our API keys 16.
 */
const MIN_SECRET_LENGTH = 6;

/** Bits of the window filter (2^20 bits = 128 KiB): few false hits for thousands of windows. */
const FILTER_BITS = 20;
const BASE = 0x01000193;
/** BASE^(LEAK_LENGTH-1) mod 2^32, to take the oldest character out of the rolling hash. */
const BASE_POW = (() => {
  let p = 1;
  for (let i = 1; i < LEAK_LENGTH; i++) p = Math.imul(p, BASE);
  return p;
})();
/** Texts remembered as clean at the most, and the longest one remembered (characters). */
const CLEAN_MEMO = 512;
const CLEAN_MEMO_MAX_LENGTH = 4096;

const slot = (h: number) => Math.imul(h, 0x9e3779b1) >>> (32 - FILTER_BITS);

/** Masks secrets in text; the interface adapters take, so tests may pass their own. */
export interface TextRedactor {
  /**
   * `s` with every secret part masked, then cut to `maxLength` characters (with `…`).
   * @param maxLength default: no cut
   */
  text(s: string, maxLength?: number): string;
}

/** A set of secrets and the functions that mask them. */
export class Redactor implements TextRedactor {
  #count = 0;
  #known = new Set<string>();
  /** Every window of {@link LEAK_LENGTH} characters of every form of every secret. */
  #windows = new Set<string>();
  #filter = new Uint32Array((1 << FILTER_BITS) / 32);
  /** Forms of 6 or 7 characters, masked only whole. */
  #short: string[] = [];
  /** Every form of every secret, whole: what an object key is checked for. */
  #wholes: string[] = [];
  #clean = new Set<string>();

  /** @param secrets initial secrets (more may be added with {@link Redactor.add}) */
  constructor(secrets: Iterable<unknown> = []) {
    for (const s of secrets) this.add(s);
  }

  /** Number of secrets known. */
  get size(): number {
    return this.#count;
  }

  /** Remembers a secret; values that are not strings or too short to search for are ignored. */
  add(secret: unknown): void {
    if (typeof secret !== "string" || secret.length < MIN_SECRET_LENGTH) return;
    if (this.#known.has(secret)) return;
    this.#known.add(secret);
    this.#count++;
    this.#clean.clear();
    const forms = new Set([secret, JSON.stringify(secret).slice(1, -1)]);
    try {
      forms.add(encodeURIComponent(secret));
    } catch { /* a lone surrogate cannot be URL-encoded */ }
    for (const form of forms) {
      this.#wholes.push(form);
      if (form.length < LEAK_LENGTH) {
        this.#short.push(form);
        continue;
      }
      for (let i = 0; i + LEAK_LENGTH <= form.length; i++) {
        const w = form.slice(i, i + LEAK_LENGTH);
        this.#windows.add(w);
        const h = slot(windowHash(w));
        this.#filter[h >>> 5] |= 1 << (h & 31);
      }
    }
  }

  /**
   * `s` with every part of a secret of 8 or more characters (and every whole short secret)
   * replaced by {@link MASK}, then cut to `maxLength` characters with `…` appended.
   */
  text(s: string, maxLength?: number): string {
    const masked = this.#mask(s);
    return maxLength !== undefined && masked.length > maxLength
      ? masked.slice(0, maxLength) + "…"
      : masked;
  }

  /**
   * `value` with every string in it masked (array items, object keys and values, at any depth).
   * Returns the same object when nothing was found; never changes its input.
   */
  redact<T>(value: T): T {
    if (!this.#count) return value;
    return this.#walk(value) as T;
  }

  /**
   * An answer's body text masked. A JSON text with a hit is parsed, masked value by value and
   * written again, so it stays valid JSON; any other text is masked as text.
   */
  answer(body: string, isJson: boolean): string {
    const masked = this.#mask(body);
    if (masked === body || !isJson) return masked;
    try {
      // Value by value: strings and numbers with every part of a secret masked, object keys
      // where they hold a whole secret (keys are the service's own field names and ids; a
      // secret that contains an ordinary word must not rename `delivery_day`).
      return JSON.stringify(this.redact(JSON.parse(body)));
    } catch {
      return masked;
    }
  }

  #walk(v: unknown): unknown {
    if (typeof v === "string") return this.#mask(v);
    if (typeof v === "number" || typeof v === "bigint") {
      // Digits of a secret inside a number: the number becomes the masked text.
      const text = String(v);
      const m = this.#mask(text);
      return m === text ? v : m;
    }
    if (Array.isArray(v)) {
      let out: unknown[] | undefined;
      v.forEach((x, i) => {
        const y = this.#walk(x);
        if (y !== x) (out ??= [...v])[i] = y;
      });
      return out ?? v;
    }
    if (v !== null && typeof v === "object") {
      let changed = false;
      const entries = Object.entries(v as Record<string, unknown>).map(([k, x]) => {
        // Keys are mostly our own schema's words: only a whole secret is masked there, so a
        // secret that happens to contain "delivery" does not rename `delivery_day`.
        const mk = this.#maskWhole(k);
        const mx = this.#walk(x);
        if (mk !== k || mx !== x) changed = true;
        return [mk, mx];
      });
      return changed ? Object.fromEntries(entries) : v;
    }
    return v;
  }

  #maskWhole(s: string): string {
    let out = s;
    for (const form of this.#wholes) if (out.includes(form)) out = out.split(form).join(MASK);
    return out;
  }

  #mask(s: string): string {
    if (!this.#count || s.length < MIN_SECRET_LENGTH || this.#clean.has(s)) return s;
    const runs: [number, number][] = [];
    if (s.length >= LEAK_LENGTH && this.#windows.size) this.#scan(s, runs);
    for (const form of this.#short) {
      for (let at = s.indexOf(form); at >= 0; at = s.indexOf(form, at + 1)) {
        runs.push([at, at + form.length]);
      }
    }
    if (!runs.length) {
      if (s.length <= CLEAN_MEMO_MAX_LENGTH) {
        if (this.#clean.size >= CLEAN_MEMO) this.#clean.clear();
        this.#clean.add(s);
      }
      return s;
    }
    runs.sort((a, b) => a[0] - b[0]);
    let out = "";
    let from = 0;
    let [start, end] = runs[0];
    for (const [a, b] of runs) {
      if (a <= end) {
        end = Math.max(end, b);
        continue;
      }
      out += s.slice(from, start) + MASK;
      from = end;
      [start, end] = [a, b];
    }
    return out + s.slice(from, start) + MASK + s.slice(end);
  }

  /** Adds `[start, end)` of every window of `s` that is part of a secret. */
  #scan(s: string, runs: [number, number][]): void {
    let h = 0;
    for (let i = 0; i < s.length; i++) {
      if (i >= LEAK_LENGTH) h = (h - Math.imul(s.charCodeAt(i - LEAK_LENGTH), BASE_POW)) | 0;
      h = (Math.imul(h, BASE) + s.charCodeAt(i)) | 0;
      if (i < LEAK_LENGTH - 1) continue;
      const k = slot(h);
      if (!(this.#filter[k >>> 5] & (1 << (k & 31)))) continue;
      const start = i - LEAK_LENGTH + 1;
      if (!this.#windows.has(s.slice(start, i + 1))) continue;
      const last = runs[runs.length - 1];
      if (last && start <= last[1]) last[1] = i + 1;
      else runs.push([start, i + 1]);
    }
  }
}

/** The rolling hash of one window, as {@link Redactor} computes it while scanning. */
function windowHash(w: string): number {
  let h = 0;
  for (let i = 0; i < w.length; i++) h = (Math.imul(h, BASE) + w.charCodeAt(i)) | 0;
  return h;
}
