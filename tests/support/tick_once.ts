/**
 * Subprocess used by tests: builds the app on a shared KV file at a given instant and either
 * runs one orchestrator tick or submits one delivery day, printing the outcome as JSON — a
 * second replica in miniature.
 *
 * Usage (env as the service):
 *   deno run -A tests/support/tick_once.ts <kvPath> <epochMs> <replicaName>
 *     → `{"name", "ran": boolean}`
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
const kv = await Deno.openKv(kvPath);
const bridge = await createApp({
  settings: loadSettings({ ...Deno.env.toObject(), KV_PATH: kvPath }),
  kv,
  clock: new FakeClock(Number(epochMs)),
});
let out: Record<string, unknown>;
if (mode === "submit") {
  try {
    const r = await runStep(bridge.ctx, day, "submit", name);
    out = { name, status: 200, sent: r.sent };
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    out = { name, status: STATUS_OF_CODE[err.code], sent: null, detail: err.message };
  }
} else {
  const outcome = await bridge.orchestrator.tick(name);
  out = { name, ran: outcome.ran };
}
await bridge.close();
kv.close();
console.log(JSON.stringify(out));
