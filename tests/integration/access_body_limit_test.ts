/**
 * The request body limit against a real server (docs/access-control.md, "Request path"): a
 * chunked body without a length is counted while it is read and cut at the limit; a declared
 * length over it is refused before any byte is read.
 */
import assert from "node:assert/strict";
import { call, rawRequest, startServer } from "../support/app.ts";
import { keysEnv, PROC } from "../support/keys.ts";

/** Sends a chunked request (no Content-Length) over TCP; returns the status line's code. */
async function chunked(url: string, path: string, key: string, body: Uint8Array) {
  const u = new URL(url);
  const conn = await Deno.connect({ hostname: u.hostname, port: Number(u.port) });
  try {
    const enc = new TextEncoder();
    await conn.write(enc.encode(
      `PUT ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\n` +
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
    ));
    const reply = (async () => {
      let text = "";
      const dec = new TextDecoder();
      const buf = new Uint8Array(4096);
      // Until the whole response is in (headers + Content-Length bytes) or the peer closes.
      for (;;) {
        const end = text.indexOf("\r\n\r\n");
        const length = /\r\ncontent-length: (\d+)/i.exec(text);
        if (end >= 0 && length && text.length >= end + 4 + Number(length[1])) break;
        const n = await conn.read(buf).catch(() => null);
        if (n === null) break;
        text += dec.decode(buf.subarray(0, n), { stream: true });
      }
      return text;
    })();
    try {
      for (let i = 0; i < body.length; i += 1024) {
        const part = body.subarray(i, i + 1024);
        await conn.write(enc.encode(`${part.length.toString(16)}\r\n`));
        await conn.write(part);
        await conn.write(enc.encode("\r\n"));
      }
      await conn.write(enc.encode("0\r\n\r\n"));
    } catch { /* the server may answer and close before the whole body is sent */ }
    const text = await reply;
    return {
      status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0),
      body: text.slice(text.indexOf("\r\n\r\n") + 4),
    };
  } finally {
    try {
      conn.close();
    } catch { /* closed */ }
  }
}

Deno.test("body limit: a chunked body without length is counted and cut at the limit", async () => {
  const s = await startServer(keysEnv({ MAX_REQUEST_BYTES: "2048" }));
  try {
    const small = new TextEncoder().encode(JSON.stringify({ sftp_host: "small.example" }));
    const ok = await chunked(s.url, "/v1/console/config", PROC, small);
    assert.equal(ok.status, 200, ok.body);
    const big = new TextEncoder().encode(
      JSON.stringify({ sftp_host: "big.example", pad: "x".repeat(4000) }),
    );
    const refused = await chunked(s.url, "/v1/console/config", PROC, big);
    assert.equal(refused.status, 413);
    assert.match(refused.body, /exceeds the limit of 2048 bytes/);
    const cfg = await call(`${s.url}/v1/console/config`, { headers: { "x-api-key": PROC } });
    const host = (cfg.body as { fields: { sftp_host: { value: string } } }).fields.sftp_host;
    assert.equal(host.value, "small.example");
  } finally {
    await s.close();
  }
});

Deno.test("body limit: 100 MB declared, nothing sent → 413 at once", async () => {
  const s = await startServer(keysEnv());
  try {
    const head = new TextEncoder().encode(
      "POST /v1/console/stream-token HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
        `X-API-Key: ${PROC}\r\nContent-Type: application/json\r\n` +
        "Content-Length: 100000000\r\n\r\n",
    );
    assert.equal(await rawRequest(s.url, head), 413);
  } finally {
    await s.close();
  }
});
