/**
 * Requests the HTTP layer refuses before the service sees them (docs/access-control.md,
 * "Request path"): a request head over 64 KiB and a malformed `Content-Length` get Deno's empty
 * 400; nothing reaches a route, so nothing is audited. Kept as it is and documented in the
 * error table of docs/api.md; this test notices if a Deno upgrade changes it.
 *
 * Real parts: the app on a temp-file KV over raw HTTP/1.1 on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { rawRequest, startServer, storedEvents } from "../support/app.ts";
import { env, PROC } from "../support/pipeline.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

Deno.test("a 64 KiB header and a malformed Content-Length: Deno's 400 before the service", async () => {
  const s = await startServer(env);
  try {
    const big = `GET /v1/console/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${PROC}\r\n` +
      `X-Padding: ${"a".repeat(64 * 1024)}\r\nConnection: close\r\n\r\n`;
    assert.equal(await rawRequest(s.url, bytes(big)), 400);
    for (const length of ["abc", "-1"]) {
      const head = `POST /v1/forecasts HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: bad\r\n` +
        `Content-Length: ${length}\r\nConnection: close\r\n\r\n`;
      assert.equal(await rawRequest(s.url, bytes(head)), 400, length);
    }
    // A head just under the limit reaches the service (and is answered by it).
    const fits = `GET /v1/console/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${PROC}\r\n` +
      `X-Padding: ${"a".repeat(60 * 1024)}\r\nConnection: close\r\n\r\n`;
    assert.equal(await rawRequest(s.url, bytes(fits)), 200);
    const denied = (await storedEvents(s.kv)).filter((e) => e.kind === "access_denied");
    assert.equal(denied.length, 0, "the refused requests never reached the audit");
  } finally {
    await s.close();
  }
});
