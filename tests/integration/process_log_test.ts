/**
 * The process log (docs/architecture.md, "Process log"): every warning and error event is also a
 * JSON line on stderr, info events on stdout with `LOG_LEVEL=info`, a start-up and a shutdown
 * line; secrets masked as everywhere.
 *
 * Real parts: `main.ts` in its own process on 127.0.0.1, its stdout and stderr.
 */
import assert from "node:assert/strict";
import { leakedPart } from "../support/leaks.ts";
import { spawnService } from "../support/service_process.ts";

const PROC = "proc-secret-0001-aaaaaaaa";
const lines = (text: string) =>
  text.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));

Deno.test("process log: warnings on stderr as JSON lines; start-up and shutdown lines; no secret", async () => {
  const svc = await spawnService({ PROCESS_API_KEYS: `ops:${PROC}` });
  let stopped = false;
  try {
    // A refused request whose path quotes a part of the real key: an access_denied warning.
    const r = await fetch(`${svc.url}/v1/delivery-days/${PROC.slice(0, 12)}/submit`, {
      method: "POST",
      headers: { "x-api-key": "wrong-key-xxxxxxxx" },
    });
    await r.body?.cancel();
    const ok = await fetch(`${svc.url}/v1/console/status`, { headers: { "x-api-key": PROC } });
    await ok.body?.cancel();
    await svc.close();
    stopped = true;
    const { stdout, stderr } = svc.output();
    const started = lines(stdout).find((l) => l.kind === "startup");
    assert.match(
      String(started?.message),
      /^scheduling bridge listening on http:\/\/127\.0\.0\.1:\d+$/,
    );
    assert.ok(lines(stdout).some((l) => l.kind === "shutdown"), stdout);
    const denied = lines(stderr).filter((l) => l.kind === "access_denied");
    assert.ok(denied.length >= 1, stderr);
    assert.deepEqual(Object.keys(denied[0]).sort(), [
      "caller",
      "delivery_day",
      "id",
      "kind",
      "level",
      "message",
      "ts",
    ]);
    assert.equal(denied[0].level, "warning");
    assert.equal(typeof denied[0].id, "number");
    assert.equal(leakedPart(stdout + stderr, PROC), undefined, "no part of the key in the log");
    // Info events stay out of the log at the default level.
    assert.ok(!lines(stdout).some((l) => l.kind === "api_call"));
  } finally {
    if (!stopped) await svc.close();
  }
});

Deno.test("process log: LOG_LEVEL=info writes info events to stdout", async () => {
  const svc = await spawnService({ PROCESS_API_KEYS: `ops:${PROC}`, LOG_LEVEL: "info" });
  try {
    const r = await fetch(`${svc.url}/v1/console/start`, {
      method: "POST",
      headers: { "x-api-key": PROC },
    });
    await r.body?.cancel();
  } finally {
    await svc.close();
  }
  const started = lines(svc.output().stdout).find((l) => l.kind === "orchestrator_started");
  assert.equal(started?.level, "info");
  assert.equal(started?.caller, "ops");
});
