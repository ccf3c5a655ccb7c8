/**
 * Subprocess used by tests: builds the app on a shared KV file and runs one orchestrator tick at
 * a given instant, printing the outcome as JSON — a second replica in miniature.
 *
 * Usage: deno run -A tests/support/tick_once.ts <kvPath> <epochMs> <replicaName>  (env as the service)
 * @module
 */
import { createApp } from "../../lib/app.ts";
import { FakeClock } from "../../lib/clock.ts";
import { tick } from "../../lib/orchestrator/orchestrator.ts";
import { loadSettings } from "../../lib/settings.ts";

const [kvPath, epochMs, name] = Deno.args;
const kv = await Deno.openKv(kvPath);
const bridge = await createApp({
  settings: loadSettings({ ...Deno.env.toObject(), KV_PATH: kvPath }),
  kv,
  clock: new FakeClock(Number(epochMs)),
});
const outcome = await tick(bridge.ctx, name);
await bridge.close();
kv.close();
console.log(JSON.stringify({ name, ran: outcome.ran }));
