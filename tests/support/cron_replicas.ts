/**
 * Two real service processes (`main.ts`, each with its own top-level `Deno.cron`) on one store,
 * the orchestrator running: at a real minute boundary exactly one of them runs a pass. Used by
 * `tests/integration/pipeline_cron_test.ts` (one KV file) and `kv_connect_cron_test.ts` (one
 * KV Connect server).
 *
 * What makes a second pass visible: publishing goes to an sFTP port nobody listens on, so every
 * pass fails each open day's publish once, counted on the day's failure story (the first failure
 * an `orchestration_error` event, every repeat counted on it). Two passes in the same minute would
 * add two per day. Waits for a real minute boundary (up to ~115 s).
 * @module
 */
import assert from "node:assert/strict";
import { call } from "./app.ts";
import { AREAS, maloId } from "./portfolio.ts";
import { PROC } from "./keys.ts";
import { freePort } from "./net.ts";
import { spawnService } from "./service_process.ts";
import type { FailureStory } from "../../lib/store/repeated_failures.ts";

/**
 * Seeds one location and the running state through a first process, then starts two processes
 * on the same store and asserts one pass (one failed publish per open day) in the next minute.
 * @param o.kvPath the services' `KV_PATH` (a file or a KV Connect URL)
 * @param o.env more environment (e.g. `DENO_KV_ACCESS_TOKEN`)
 * @param o.observe opens the store for this test's reads (the file itself, also for a KV Connect
 *   server's SQLite file, which is Deno KV's own format)
 * @param o.dir a temp dir for the outbox
 */
export async function assertOnePassPerMinute(o: {
  kvPath: string;
  env: Record<string, string>;
  observe: () => Promise<Deno.Kv>;
  dir: string;
}): Promise<void> {
  const env = {
    ...o.env,
    PROCESS_API_KEYS: `ops:${PROC}`,
    RATE_LIMIT_PER_MINUTE: "0",
    PUBLISH_TARGET: "sftp",
    SFTP_HOST: "127.0.0.1",
    SFTP_PORT: String(freePort()), // nobody listens there
    SFTP_USERNAME: "bridge",
    SFTP_PASSWORD: "sftp-password-0001-xx",
    OUTBOX_DIR: `${o.dir}/outbox`,
    // The running day and tomorrow only: a light pass, also on a machine busy with the suite.
    ORCHESTRATOR_HORIZON_DAYS: "1",
  };
  // Master data and the running state, written through the API of a first instance.
  const seed = await spawnService(env, { kvPath: o.kvPath });
  try {
    const put = await call(`${seed.url}/v1/market-locations/${maloId(1)}`, {
      method: "PUT",
      headers: { "x-api-key": PROC, "content-type": "application/json" },
      body: JSON.stringify({
        control_area: AREAS.amprion,
        direction: "consumption",
        standard_load_profile: "H0",
        annual_kwh: 3500,
      }),
    });
    assert.equal(put.status, 201);
    const started = await call(`${seed.url}/v1/console/start`, {
      method: "POST",
      headers: { "x-api-key": PROC },
    });
    assert.equal(started.status, 200);
  } finally {
    await seed.close();
  }

  // Both listening, so both have registered their cron.
  const replicas = await Promise.all([0, 1].map(() => spawnService(env, { kvPath: o.kvPath })));
  const kv = await o.observe();
  try {
    // Every pass fails to publish each open day once; the failure is counted on the day's
    // failure story (the first as an event, every repeat on it: lib/store/repeated_failures.ts).
    // So a pass adds exactly 1 to each day's count, two passes would add 2.
    const failuresPerDay = async () => {
      const counts: Record<string, number> = {};
      for await (
        const e of kv.list<FailureStory>({ prefix: ["failure_stories", "step:publish"] })
      ) {
        const day = String(e.value.delivery_day);
        counts[day] = (counts[day] ?? 0) + 1 + e.value.repeats;
      }
      return counts;
    };

    // The next minute boundary at least 3 s away; the counts just before it.
    let boundary = Math.ceil(Date.now() / 60_000) * 60_000;
    if (boundary - Date.now() < 3_000) boundary += 60_000;
    await new Promise((r) => setTimeout(r, boundary - 1_000 - Date.now()));
    const before = await failuresPerDay();

    // Under a loaded machine (the suite runs files in parallel) the pass may need a while to
    // meet the refusing port: wait for every open day's count to move, until 50 s into the minute.
    const moved = (now: Record<string, number>) => {
      const days = new Set([...Object.keys(before), ...Object.keys(now)]);
      return days.size > 0 && [...days].every((day) => (now[day] ?? 0) > (before[day] ?? 0));
    };
    let after = await failuresPerDay();
    while (!moved(after) && Date.now() < boundary + 50_000) {
      await new Promise((r) => setTimeout(r, 500));
      after = await failuresPerDay();
    }
    const minute = boundary / 60_000;
    const lease = await kv.get<{ holder: string }>(["leases", "orchestrator", minute]);
    if (!moved(after)) {
      const all: string[] = [];
      for await (const e of kv.list<Record<string, unknown>>({ prefix: ["events"] })) {
        all.push(`${e.value.ts} ${e.value.kind} ${e.value.caller}: ${e.value.message}`);
      }
      assert.fail(
        `a pass in minute ${new Date(boundary).toISOString()} (lease ${
          JSON.stringify(lease.value)
        }) met the refusing sFTP port for every open day; failures before ${
          JSON.stringify(before)
        }, after ${JSON.stringify(after)}, events:\n${all.join("\n")}\nlogs: ${
          JSON.stringify(replicas.map((r) => r.output())).slice(0, 4000)
        }`,
      );
    }
    assert.match(String(lease.value?.holder), /^replica-/, "one replica took this minute's lease");
    // A second replica's pass would come at the same boundary: give it time to show, then count.
    await new Promise((r) => setTimeout(r, 3_000));
    after = await failuresPerDay();
    assert.deepEqual(
      Object.fromEntries(Object.entries(after).map(([day, n]) => [day, n - (before[day] ?? 0)])),
      Object.fromEntries(Object.keys(after).map((day) => [day, 1])),
      `one pass per minute: failures per day before ${JSON.stringify(before)}, after ${
        JSON.stringify(after)
      }`,
    );
    // Both processes were still serving.
    for (const replica of replicas) {
      const race = await Promise.race([
        replica.exited.then(() => "exited"),
        new Promise((r) => setTimeout(() => r("alive"), 10)),
      ]);
      assert.equal(race, "alive");
    }
  } finally {
    kv.close();
    await Promise.all(replicas.map((r) => r.close()));
  }
}
