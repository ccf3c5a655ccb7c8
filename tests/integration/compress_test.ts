/**
 * Compressed answers (docs/console.md, "First load"): JSON, HTML and the console's static files
 * travel Brotli- or gzip-encoded when the client accepts it, decode to the identity bytes, keep
 * the redaction, and leave small answers (the status), event streams and clients that accept no
 * encoding alone. Read over raw TCP: `fetch` would decode on its own.
 */
import assert from "node:assert/strict";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { startServer, type TestServer } from "../support/app.ts";
import { PROC } from "../support/keys.ts";

/** One HTTP/1.1 exchange (`Connection: close`): status, lower-case headers, raw body bytes. */
async function raw(s: TestServer, path: string, headers: Record<string, string> = {}) {
  const u = new URL(s.url);
  const conn = await Deno.connect({ hostname: u.hostname, port: Number(u.port) });
  const head = Object.entries({ host: u.host, connection: "close", ...headers })
    .map(([k, v]) => `${k}: ${v}\r\n`).join("");
  await conn.write(new TextEncoder().encode(`GET ${path} HTTP/1.1\r\n${head}\r\n`));
  const chunks: Uint8Array[] = [];
  const buf = new Uint8Array(65536);
  for (;;) {
    const n = await conn.read(buf);
    if (n === null) break;
    chunks.push(buf.slice(0, n));
  }
  conn.close();
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let off = 0;
  for (const c of chunks) all.set(c, (off += c.length) - c.length);
  const split = all.findIndex((_, i) =>
    all[i] === 13 && all[i + 1] === 10 && all[i + 2] === 13 && all[i + 3] === 10
  );
  const lines = new TextDecoder().decode(all.slice(0, split)).split("\r\n");
  const h = new Map(
    lines.slice(1).map((l) => {
      const i = l.indexOf(":");
      return [l.slice(0, i).toLowerCase(), l.slice(i + 1).trim()] as [string, string];
    }),
  );
  let body = all.slice(split + 4);
  if (h.get("transfer-encoding") === "chunked") {
    const parts: number[] = [];
    let i = 0;
    for (;;) {
      const eol = body.indexOf(13, i);
      const size = parseInt(new TextDecoder().decode(body.slice(i, eol)), 16);
      if (!size) break;
      parts.push(...body.slice(eol + 2, eol + 2 + size));
      i = eol + 2 + size + 2;
    }
    body = new Uint8Array(parts);
  }
  return { status: Number(lines[0].split(" ")[1]), headers: h, body };
}

const text = (b: Uint8Array) => new TextDecoder().decode(b);

Deno.test("compression: br or gzip as accepted, identity bytes after decoding, small answers and streams untouched", async () => {
  const s = await startServer({ PROCESS_API_KEYS: `ops:${PROC}`, RATE_LIMIT_PER_MINUTE: "0" });
  try {
    const key = { "x-api-key": PROC };
    const plain = await raw(s, "/v1/console/config", key);
    assert.equal(plain.status, 200);
    assert.equal(plain.headers.get("content-encoding"), undefined);
    // Passed on as it was built: a known length, not a chunked stream.
    assert.equal(plain.headers.get("transfer-encoding"), undefined);
    assert.equal(Number(plain.headers.get("content-length")), plain.body.length);
    assert.ok(plain.body.length > 1024);
    assert.match(plain.headers.get("vary") ?? "", /Accept-Encoding/);

    const br = await raw(s, "/v1/console/config", { ...key, "accept-encoding": "gzip, br" });
    assert.equal(br.headers.get("content-encoding"), "br");
    assert.equal(text(brotliDecompressSync(br.body)), text(plain.body));
    assert.ok(br.body.length < plain.body.length / 3, `${br.body.length} of ${plain.body.length}`);

    const gz = await raw(s, "/v1/console/config", { ...key, "accept-encoding": "gzip, br;q=0" });
    assert.equal(gz.headers.get("content-encoding"), "gzip");
    assert.equal(text(gunzipSync(gz.body)), text(plain.body));

    // A small answer (the health check) is sent as it is.
    const status = await raw(s, "/health", { ...key, "accept-encoding": "br" });
    assert.equal(status.status, 200);
    assert.equal(status.headers.get("content-encoding"), undefined);
    assert.ok(status.body.length < 1024);

    // The page and the bundle-independent static files; a strong ETag becomes weak and still
    // answers 304.
    const page = await raw(s, "/console", { "accept-encoding": "br" });
    assert.equal(page.headers.get("content-encoding"), "br");
    assert.match(text(brotliDecompressSync(page.body)), /^<!doctype html>/);
    const css = await raw(s, "/static/styles.css", { "accept-encoding": "gzip" });
    assert.equal(css.headers.get("content-encoding"), "gzip");
    const etag = css.headers.get("etag")!;
    assert.match(etag, /^W\/"/);
    const again = await raw(s, "/static/styles.css", {
      "accept-encoding": "gzip",
      "if-none-match": etag,
    });
    assert.equal(again.status, 304);

    // A refusal that quotes a secret is masked before it is compressed.
    const q = `/v1/console/events?limit=${PROC}${"x".repeat(1500)}&kind=${PROC}${"y".repeat(1500)}`;
    const refused = await raw(s, q, { ...key, "accept-encoding": "br" });
    assert.equal(refused.status, 422);
    assert.equal(refused.headers.get("content-encoding"), "br");
    const quoted = text(brotliDecompressSync(refused.body));
    assert.doesNotMatch(quoted, new RegExp(PROC));
    assert.match(quoted, /\*\*\*\*\*\*\*\*x/);
  } finally {
    await s.close();
  }
});

Deno.test("compression: the live event stream is never compressed", async () => {
  const s = await startServer({ PROCESS_API_KEYS: `ops:${PROC}`, RATE_LIMIT_PER_MINUTE: "0" });
  try {
    const t = await fetch(`${s.url}/v1/console/stream-token`, {
      method: "POST",
      headers: { "x-api-key": PROC },
    });
    const { token } = await t.json();
    const ac = new AbortController();
    const res = await fetch(`${s.url}/v1/console/events/stream?token=${token}`, {
      headers: { "accept-encoding": "br, gzip" },
      signal: ac.signal,
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-encoding"), null);
    const reader = res.body!.getReader();
    const first = await reader.read();
    assert.equal(text(first.value!), "retry: 3000\n\n");
    await reader.cancel();
  } finally {
    await s.close();
  }
});
