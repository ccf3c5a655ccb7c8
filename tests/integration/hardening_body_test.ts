/**
 * Authentication before any body byte (docs/access-control.md, "Request path"): a refused request
 * gets its 401 without its body being read, so anonymous uploads that never finish cost the
 * server no memory.
 *
 * Real parts: `main.ts` in its own process on a temp-file KV, raw HTTP/1.1 over TCP on
 * 127.0.0.1, the server's resident memory read from `/proc/<pid>/status`.
 */
import assert from "node:assert/strict";
import { spawnService } from "../support/service_process.ts";
import { PROC } from "../support/keys.ts";

const MiB = 1024 * 1024;
const UPLOADS = 16;
const UPLOAD_BYTES = 8 * MiB;

/**
 * Opens an anonymous chunked upload of `total` bytes that never sends its last chunk; resolves
 * with the status code once the server answered, or 0 when it did not answer within 10 s. The
 * connection stays open until `conn.close()`.
 */
async function endlessUpload(port: number, total: number) {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const enc = new TextEncoder();
  await conn.write(enc.encode(
    "POST /v1/forecasts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
      "Transfer-Encoding: chunked\r\n\r\n",
  ));
  const answered = (async () => {
    const buf = new Uint8Array(4096);
    let text = "";
    while (!text.includes("\r\n\r\n")) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) break;
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
    return Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? -1);
  })();
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  const framed = new Uint8Array([
    ...enc.encode(`${chunk.length.toString(16)}\r\n`),
    ...chunk,
    ...enc.encode("\r\n"),
  ]);
  const sending = (async () => {
    for (let sent = 0; sent < total; sent += chunk.length) {
      const write = conn.write(framed);
      write.catch(() => {}); // a write still pending when the connection closes
      const first = await Promise.race([write.then(() => "sent"), answered.then(() => "answered")])
        .catch(() => "closed");
      if (first !== "sent") return;
    }
  })();
  await Promise.race([answered, sending]);
  // The server may take (and drop) the bytes before its answer arrives: wait for the answer, but
  // not forever — a server that waits for the body's end never answers (status 0).
  let timer: ReturnType<typeof setTimeout> | undefined;
  const status = await Promise.race([
    answered,
    new Promise<number>((r) => timer = setTimeout(() => r(0), 10_000)),
  ]);
  clearTimeout(timer);
  return { conn, status };
}

Deno.test("16 anonymous 8 MiB chunked uploads that never finish: 401 at once, memory stays flat", async () => {
  const svc = await spawnService({ PROCESS_API_KEYS: `ops:${PROC}` });
  try {
    // Warm up the request path so its one-time allocations are in the baseline.
    for (let i = 0; i < 20; i++) {
      const r = await fetch(`${svc.url}/v1/forecasts`, { method: "POST", body: "{}" });
      await r.body?.cancel();
      assert.equal(r.status, 401);
    }
    const baseline = await svc.rssBytes();
    const uploads = await Promise.all(
      Array.from({ length: UPLOADS }, () => endlessUpload(svc.port, UPLOAD_BYTES)),
    );
    const during = await svc.rssBytes();
    for (const u of uploads) {
      try {
        u.conn.close();
      } catch { /* the server closed it */ }
    }
    // Something that needs the server to have seen the closes before the last reading.
    await (await fetch(`${svc.url}/health`)).body?.cancel();
    const after = await svc.rssBytes();
    const mib = (n: number) => `${(n / MiB).toFixed(1)} MiB`;
    const figures = `baseline ${mib(baseline)}, during ${mib(during)}, after ${mib(after)}`;
    console.log(`      memory: ${figures}`);
    assert.deepEqual(uploads.map((u) => u.status), Array(UPLOADS).fill(401), figures);
    assert.ok(during - baseline < 32 * MiB, `grew by ${mib(during - baseline)}: ${figures}`);
    assert.ok(after - baseline < 32 * MiB, `not given back: ${figures}`);
  } finally {
    await svc.close();
  }
});
