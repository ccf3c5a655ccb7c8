/**
 * SHA-256 (FIPS 180-4) of short strings, synchronous and allocation-light, for the API-key check
 * on every request (DESIGN §4). `node:crypto`'s `createHash` costs about 3 µs a call in Deno (a
 * stream object and several ops) and WebCrypto's `digest` is asynchronous; this takes well under
 * a microsecond for a key. Checked against `node:crypto` in `tests/unit/perf_cache_auth_test.ts`.
 *
 * @example
 * const d = sha256("secret"); // 8 big-endian 32-bit words
 * equalDigests(d, sha256("secret")); // true, in constant time
 * @module
 */

const K = new Uint32Array([
  0x428a2f98,
  0x71374491,
  0xb5c0fbcf,
  0xe9b5dba5,
  0x3956c25b,
  0x59f111f1,
  0x923f82a4,
  0xab1c5ed5,
  0xd807aa98,
  0x12835b01,
  0x243185be,
  0x550c7dc3,
  0x72be5d74,
  0x80deb1fe,
  0x9bdc06a7,
  0xc19bf174,
  0xe49b69c1,
  0xefbe4786,
  0x0fc19dc6,
  0x240ca1cc,
  0x2de92c6f,
  0x4a7484aa,
  0x5cb0a9dc,
  0x76f988da,
  0x983e5152,
  0xa831c66d,
  0xb00327c8,
  0xbf597fc7,
  0xc6e00bf3,
  0xd5a79147,
  0x06ca6351,
  0x14292967,
  0x27b70a85,
  0x2e1b2138,
  0x4d2c6dfc,
  0x53380d13,
  0x650a7354,
  0x766a0abb,
  0x81c2c92e,
  0x92722c85,
  0xa2bfe8a1,
  0xa81a664b,
  0xc24b8b70,
  0xc76c51a3,
  0xd192e819,
  0xd6990624,
  0xf40e3585,
  0x106aa070,
  0x19a4c116,
  0x1e376c08,
  0x2748774c,
  0x34b0bcb5,
  0x391c0cb3,
  0x4ed8aa4a,
  0x5b9cca4f,
  0x682e6ff3,
  0x748f82ee,
  0x78a5636f,
  0x84c87814,
  0x8cc70208,
  0x90befffa,
  0xa4506ceb,
  0xbef9a3f7,
  0xc67178f2,
]);
const encoder = new TextEncoder();
const W = new Uint32Array(64);
let scratch = new Uint8Array(256);

/** A reused scratch buffer with room for `n` bytes and their padding. */
function buffer(n: number): Uint8Array {
  if (scratch.length < n + 72) scratch = new Uint8Array(n + 72);
  return scratch;
}

/**
 * The SHA-256 digest of the UTF-8 bytes of `text`.
 * @returns 8 big-endian 32-bit words (a new array)
 */
export function sha256(text: string): Uint32Array {
  let n = text.length;
  let bytes: Uint8Array;
  // deno-lint-ignore no-control-regex
  if (/^[\x00-\x7f]*$/.test(text)) {
    bytes = buffer(n);
    for (let i = 0; i < n; i++) bytes[i] = text.charCodeAt(i);
  } else {
    const utf8 = encoder.encode(text);
    n = utf8.length;
    bytes = buffer(n);
    bytes.set(utf8);
  }
  const blocks = Math.ceil((n + 9) / 64);
  const total = blocks * 64;
  // Padding: 0x80, zeros, the bit length as a 64-bit big-endian number (below 2^32 here).
  bytes[n] = 0x80;
  bytes.fill(0, n + 1, total - 4);
  const bits = n * 8;
  bytes[total - 4] = bits >>> 24;
  bytes[total - 3] = (bits >>> 16) & 0xff;
  bytes[total - 2] = (bits >>> 8) & 0xff;
  bytes[total - 1] = bits & 0xff;
  const h = new Uint32Array([
    0x6a09e667,
    0xbb67ae85,
    0x3c6ef372,
    0xa54ff53a,
    0x510e527f,
    0x9b05688c,
    0x1f83d9ab,
    0x5be0cd19,
  ]);
  for (let b = 0; b < blocks; b++) {
    const base = b * 64;
    for (let t = 0; t < 16; t++) {
      const i = base + t * 4;
      W[t] = (bytes[i] << 24) | (bytes[i + 1] << 16) | (bytes[i + 2] << 8) | bytes[i + 3];
    }
    for (let t = 16; t < 64; t++) {
      const w15 = W[t - 15], w2 = W[t - 2];
      const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
      const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
      W[t] = (W[t - 16] + s0 + W[t - 7] + s1) | 0;
    }
    let a = h[0], bb = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (let t = 0; t < 64; t++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (hh + S1 + ch + K[t] + W[t]) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & bb) ^ (a & c) ^ (bb & c);
      const t2 = (S0 + maj) | 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = bb;
      bb = a;
      a = (t1 + t2) | 0;
    }
    h[0] += a;
    h[1] += bb;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
  }
  return h;
}

/**
 * Compares two digests of {@link sha256} in constant time: every word is looked at, whatever
 * differs first (the `timingSafeEqual` of DESIGN §4 on 32-bit words).
 */
export function equalDigests(a: Uint32Array, b: Uint32Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < 8; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}
