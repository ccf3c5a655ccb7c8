/**
 * Subprocess used by tests: builds the app on a shared KV file at a given instant and either
 * runs one orchestrator tick or submits one delivery day, printing the outcome as JSON — a
 * second replica in miniature.
 *
 * Usage (env as the service):
 *   deno run -A tests/support/tick_once.ts <kvPath> <epochMs>[,<epochMs>…] <replicaName>
 *     → one line `{"name", "at": epochMs, "ran": boolean}` per instant, ticked in the given order
 *       (one process ticks several minutes: a process start costs about a second of CPU)
 *   deno run -A tests/support/tick_once.ts <kvPath> <epochMs> <replicaName> submit <day>
 *     → `{"name", "status": 200 | 409 | 502, "sent": boolean | null, "detail"?: string}`
 * @module
 */
import { createApp } from "../../app.ts";
import { FakeClock } from "../../lib/clock.ts";
import { DomainError } from "../../lib/domain/errors.ts";
import { STATUS_OF_CODE } from "../../lib/http/problem_map.ts";
import { runStep } from "../../lib/pipeline/steps.ts";
import { loadSettings } from "../../lib/settings.ts";

const [kvPath, epochMs, name, mode, day] = Deno.args;
const instants = epochMs.split(",").map(Number);
const kv = await Deno.openKv(kvPath);
const clock = new FakeClock(instants[0]);
const bridge = await createApp({
  settings: loadSettings({ ...Deno.env.toObject(), KV_PATH: kvPath }),
  kv,
  clock,
});
let out: Record<string, unknown> | undefined;
if (mode === "submit") {
  try {
    const r = await runStep(bridge.ctx, day, "submit", name);
    out = { name, status: 200, sent: "sent" in r ? r.sent : null };
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    out = { name, status: STATUS_OF_CODE[err.code], sent: null, detail: err.message };
  }
} else {
  for (const at of instants) {
    clock.set(at);
    const outcome = await bridge.orchestrator.tick(name);
    console.log(JSON.stringify({ name, at, ran: outcome.ran }));
  }
}
await bridge.close();
kv.close();
if (out) console.log(JSON.stringify(out));
