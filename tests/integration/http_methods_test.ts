/**
 * Unknown paths and wrong methods are refused with a sentence, never a bare status: 404 names the
 * request, 405 names what the path answers and carries `Allow` (RFC 9110 §15.5.6).
 */
import assert from "node:assert/strict";
import { MASK } from "../../lib/store/redactor.ts";
import { call, startServer, storedEvents } from "../support/app.ts";
import { PROC } from "../support/keys.ts";

Deno.test("a wrong method on a known path is 405 with Allow; an unknown path is 404", async () => {
  const s = await startServer({ PROCESS_API_KEYS: `ops:${PROC}`, RATE_LIMIT_PER_MINUTE: "0" });
  try {
    const headers = { "x-api-key": PROC };
    const status = await call(`${s.url}/v1/console/status`, { method: "DELETE", headers });
    assert.equal(status.status, 405);
    assert.equal(status.headers.get("allow"), "GET, HEAD");
    assert.deepEqual(status.body, {
      detail: "/v1/console/status does not answer DELETE; it answers GET, HEAD.",
    });

    const config = await call(`${s.url}/v1/console/config`, { method: "POST", headers });
    assert.equal(config.status, 405);
    assert.deepEqual(config.headers.get("allow")?.split(", ").sort(), [
      "DELETE",
      "GET",
      "HEAD",
      "PUT",
    ]);

    // A path parameter matches one segment: a known route shape with another method …
    const step = await call(`${s.url}/v1/delivery-days/2026-11-23/aggregate`, { headers });
    assert.equal(step.status, 405);
    assert.equal(step.headers.get("allow"), "POST");
    // … but one segment more is no route at all.
    const deeper = await call(`${s.url}/v1/delivery-days/2026-11-23/aggregate/now`, {
      method: "POST",
      headers,
    });
    assert.equal(deeper.status, 404);
    assert.deepEqual(deeper.body, {
      detail: "No route for POST /v1/delivery-days/2026-11-23/aggregate/now.",
    });

    // HEAD, listed in Allow, is answered wherever GET is.
    const head = await fetch(`${s.url}/v1/console/status`, { method: "HEAD", headers });
    assert.equal(head.status, 200);
    await head.body?.cancel();

    const unknown = await call(`${s.url}/v1/nothing-here`);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.headers.get("content-type"), "application/json");
  } finally {
    await s.close();
  }
});

Deno.test("a key pasted into an unknown path is masked in the 404, the 405, events and log lines", async () => {
  const lines: string[] = [];
  const s = await startServer(
    { PROCESS_API_KEYS: `ops:${PROC}`, RATE_LIMIT_PER_MINUTE: "0" },
    { logSink: { write: (_level, line) => lines.push(line) } },
  );
  try {
    const headers = { "x-api-key": PROC };
    const unknown = await call(`${s.url}/v1/keys/${PROC}/use`, { headers });
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body, { detail: `No route for GET /v1/keys/${MASK}/use.` });
    // Unauthenticated, URL-encoded form of a part of the key, too.
    const encoded = await call(`${s.url}/${encodeURIComponent(PROC.slice(2))}`);
    assert.equal(encoded.status, 404);
    assert.ok(!JSON.stringify(encoded.body).includes(PROC.slice(2, 10)), String(encoded.body));
    assert.match(JSON.stringify(encoded.body), /\*{8}/);
    // A known route shape (a path parameter) with a method it does not answer: 405 quotes it.
    const wrong = await call(`${s.url}/v1/delivery-days/${PROC}/aggregate`, { headers });
    assert.equal(wrong.status, 405);
    assert.deepEqual(wrong.body, {
      detail: `/v1/delivery-days/${MASK}/aggregate does not answer GET; it answers POST.`,
    });
    await s.bridge.ctx.events.drain();
    const stored = JSON.stringify(await storedEvents(s.kv));
    assert.ok(!stored.includes(PROC.slice(0, 8)) && !stored.includes(PROC.slice(-8)));
    const logged = lines.join("\n");
    assert.ok(!logged.includes(PROC.slice(0, 8)) && !logged.includes(PROC.slice(-8)), logged);
  } finally {
    await s.close();
  }
});
