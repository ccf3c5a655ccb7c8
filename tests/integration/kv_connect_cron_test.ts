/**
 * Two real service processes (`main.ts`, each with its own top-level `Deno.cron`) on one KV
 * Connect server (`dev/kv_connect_server.ts`, docs/kv.md "Replicas over KV Connect"), the
 * orchestrator running: at a minute boundary exactly one of them runs a pass — the minute's lease
 * is taken over KV Connect (tests/support/cron_replicas.ts says how a second pass would show).
 * The test waits for a real minute boundary (up to ~115 s).
 */
import { tempDir } from "../support/temp.ts";
import { assertOnePassPerMinute } from "../support/cron_replicas.ts";
import { startKvConnect } from "../support/kv_connect.ts";

Deno.test("two service processes on one KV Connect server, both running Deno.cron → exactly one pass per minute", async () => {
  await using tmp = await tempDir("bridge-kvc-cron-");
  const peer = await startKvConnect();
  try {
    await assertOnePassPerMinute({
      kvPath: peer.url,
      env: peer.serviceEnv,
      // This test's reads go to the peer's SQLite file itself (Deno KV's own format): the
      // test process has no access token in its environment.
      observe: () => Deno.openKv(peer.path),
      dir: tmp.path,
    });
  } finally {
    await peer.close();
  }
});
