/**
 * Two real service processes (`main.ts`, each with its own top-level `Deno.cron`) on one KV
 * file, the orchestrator running: at a minute boundary exactly one of them runs a pass
 * (tests/support/cron_replicas.ts says how a second pass would show). The test waits for a real
 * minute boundary (up to ~115 s).
 */
import { tempDir } from "../support/temp.ts";
import { assertOnePassPerMinute } from "../support/cron_replicas.ts";

Deno.test("two service processes on one KV file, both running Deno.cron → exactly one pass per minute", async () => {
  await using tmp = await tempDir("bridge-cron-");
  const kvPath = `${tmp.path}/bridge.kv`;
  await assertOnePassPerMinute({
    kvPath,
    env: {},
    observe: () => Deno.openKv(kvPath),
    dir: tmp.path,
  });
});
