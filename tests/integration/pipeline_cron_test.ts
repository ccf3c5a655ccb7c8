/**
 * Two real service processes (`main.ts`, each with its own top-level `Deno.cron`) on one KV
 * file, the orchestrator running: at a minute boundary exactly one of them runs a pass.
 *
 * What makes a second pass visible: publishing goes to an sFTP port nobody listens on, so every
 * pass fails each open day's publish once, counted on the day's failure story (the first failure
 * an `orchestration_error` event, every repeat counted on it). Two passes in the same minute would
 * add two per day. The test waits for a real minute boundary (up to ~115 s).
 */
import assert from "node:assert/strict";
import { call, startServer } from "../support/app.ts";
import { AREAS, maloId } from "../support/portfolio.ts";
import { tempDir } from "../support/temp.ts";
import { PROC } from "../support/keys.ts";
import { freePort } from "../support/net.ts";
import type { FailureStory } from "../../lib/store/repeated_failures.ts";

Deno.test("two service processes on one KV file, both running Deno.cron → exactly one pass per minute", async () => {
  await using tmp = await tempDir("bridge-cron-");
  const dir = tmp.path;
  const env = {
    PROCESS_API_KEYS: `ops:${PROC}`,
    RATE_LIMIT_PER_MINUTE: "0",
    PUBLISH_TARGET: "sftp",
    SFTP_HOST: "127.0.0.1",
    SFTP_PORT: String(freePort()), // nobody listens there
    SFTP_USERNAME: "bridge",
    SFTP_PASSWORD: "sftp-password-0001-xx",
    OUTBOX_DIR: `${dir}/outbox`,
    // The running day and tomorrow only: a light pass, also on a machine busy with the suite.
    ORCHESTRATOR_HORIZON_DAYS: "1",
  };
  // Master data and the running state, written through the API of a first instance.
  const seed = await startServer(env, { kvPath: `${dir}/bridge.kv` });
  const kvPath = seed.kvPath;
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
    await seed.close({ keepDir: true });
  }

  const spawn = () =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "main.ts"],
      env: { ...env, KV_PATH: kvPath, PORT: "0", HOSTNAME: "127.0.0.1" },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  const children = [spawn(), spawn()];
  const logs = children.map(() => "");
  const readers = children.map((child, i) =>
    (async () => {
      for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) logs[i] += chunk;
    })()
  );
  const errs = children.map(() => "");
  const errReaders = children.map((child, i) =>
    (async () => {
      for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) errs[i] += chunk;
    })()
  );
  const kv = await Deno.openKv(kvPath);
  try {
    // Both listening (so both have registered their cron).
    const until = Date.now() + 20_000;
    while (!logs.every((l) => l.includes("listening on")) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(logs.every((l) => l.includes("listening on")), JSON.stringify({ logs, errs }));

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
          JSON.stringify({ logs, errs }).slice(0, 4000)
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
    for (const child of children) {
      const race = await Promise.race([
        child.status.then(() => "exited"),
        new Promise((r) => setTimeout(() => r("alive"), 10)),
      ]);
      assert.equal(race, "alive");
    }
  } finally {
    kv.close();
    for (const child of children) {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
    }
    await Promise.all(children.map((c) => c.status));
    await Promise.all([...readers, ...errReaders]);
  }
});
