/**
 * Day-ahead pipeline part 2: publish to the local outbox, submit to the market-platform
 * simulator over TLS, the orchestrator's pass, exactly-once submission, gate closure.
 */
import assert from "node:assert/strict";
import { STORY_ATTEMPTS } from "../../lib/store/repeated_failures.ts";
import { Orchestrator } from "../../lib/orchestrator/orchestrator.ts";
import { startSimulator } from "../../dev/market_platform_simulator.ts";
import { FakeClock } from "../../lib/clock.ts";
import { call, startServer, storedEvents, type TestServer } from "../support/app.ts";
import { EXT, ext, PROC, proc } from "../support/pipeline.ts";
import { AREAS, maloId } from "../support/portfolio.ts";
import { tempDir } from "../support/temp.ts";

const DAY = "2026-11-23";

interface Rig {
  s: TestServer;
  sim: Awaited<ReturnType<typeof startSimulator>>;
  clock: FakeClock;
  outbox: string;
  close(): Promise<void>;
}

/** Server + simulator + two market locations with forecasts for DAY; clock before gate closure. */
async function rig(extraEnv: Record<string, string> = {}): Promise<Rig> {
  const sim = await startSimulator();
  const tmp = await tempDir("bridge-p2-");
  const dir = tmp.path;
  const ca = `${dir}/ca.pem`;
  await Deno.writeTextFile(ca, sim.caCert);
  const clock = new FakeClock(Date.parse("2026-11-22T08:00:00Z")); // 09:00 Berlin, GC 12:00
  const s = await startServer({
    PROCESS_API_KEYS: `ops:${PROC}`,
    EXTERNAL_API_KEYS: `acme:${EXT}`,
    RATE_LIMIT_PER_MINUTE: "0",
    MARKET_PLATFORM_URL: sim.url,
    MARKET_PLATFORM_API_KEY: sim.apiKey,
    MARKET_PLATFORM_CA_FILE: ca,
    MARKET_PLATFORM_BACKOFF_MS: "10",
    MARKET_PLATFORM_TIMEOUT_SECONDS: "5",
    BALANCING_GROUP: "11XDE-EXAMPLE--H",
    SENDER_EIC: "11XDE-EXAMPLE--H",
    OUTBOX_DIR: `${dir}/outbox`,
    ACTIVE_CONTROL_AREAS: `${AREAS.amprion},${AREAS.tennet}`,
    ...extraEnv,
  }, { clock });
  for (const [i, area] of [[1, AREAS.amprion], [2, AREAS.tennet]] as const) {
    await call(`${s.url}/v1/market-locations/${maloId(i)}`, {
      method: "PUT",
      headers: ext,
      body: JSON.stringify({ control_area: area, direction: "consumption" }),
    });
  }
  await postForecast(s, 1, 100);
  await postForecast(s, 2, 200);
  return {
    s,
    sim,
    clock,
    outbox: `${dir}/outbox`,
    async close() {
      await s.close();
      await sim.close();
      await tmp.remove();
    },
  };
}

async function postForecast(s: TestServer, n: number, kw: number) {
  const r = await call(`${s.url}/v1/forecasts`, {
    method: "POST",
    headers: ext,
    body: JSON.stringify({
      market_location_id: maloId(n),
      delivery_day: DAY,
      unit: "kW",
      values: Array(96).fill(kw),
    }),
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

/** Submissions the simulator stored for DAY. */
const forDay = (r: Rig) => r.sim.submissions().filter((x) => x.body.delivery_day === DAY);

const step = (s: TestServer, name: string) =>
  call(`${s.url}/v1/delivery-days/${DAY}/${name}`, { method: "POST", headers: proc });

Deno.test("publish to the outbox, then submit over TLS: receipt stored, payload matches the aggregate", async () => {
  const r = await rig();
  try {
    assert.equal((await step(r.s, "aggregate")).status, 200);
    const pub = await step(r.s, "publish");
    assert.equal(pub.status, 200, JSON.stringify(pub.body));
    const file = `${r.outbox}/open_position_${DAY}_v2.csv`;
    assert.equal((pub.body as { location: string }).location, file);
    const csv = await Deno.readTextFile(file);
    const delivered = await call(`${r.s.url}/v1/delivery-days/${DAY}/open-position`, {
      headers: { ...ext, accept: "text/csv" },
    });
    assert.equal(csv, delivered.body);
    assert.deepEqual([...Deno.readDirSync(r.outbox)].map((e) => e.name), [
      `open_position_${DAY}_v2.csv`,
    ]);

    const sub = await step(r.s, "submit");
    assert.equal(sub.status, 200, JSON.stringify(sub.body));
    const body = sub.body as {
      sent: boolean;
      idempotency_key: string;
      receipt: { status: number; body: { submission_id: string } };
    };
    assert.equal(body.sent, true);
    assert.equal(body.idempotency_key, `${DAY}-v2`);
    assert.equal(body.receipt.status, 201);
    const [stored] = r.sim.submissions();
    assert.equal(r.sim.submissions().length, 1);
    assert.equal(stored.idempotency_key, `${DAY}-v2`);
    assert.deepEqual(stored.body.schedules, [
      { control_area: AREAS.amprion, quantities: Array(96).fill(0.1) },
      { control_area: AREAS.tennet, quantities: Array(96).fill(0.2) },
    ]);
    assert.equal(stored.body.resolution, "PT15M");
    assert.equal(stored.body.balancing_group, "11XDE-EXAMPLE--H");
    const ov = await call(`${r.s.url}/v1/console/delivery-days`, { headers: proc });
    const steps = (ov.body as {
      delivery_days: {
        steps: Record<string, { version: number; detail: Record<string, unknown> } | null>;
      }[];
    }).delivery_days[0].steps;
    assert.equal(steps.submitted?.version, 2);
    assert.equal(
      (steps.submitted?.detail.receipt as { submission_id: string }).submission_id,
      stored.submission_id,
    );
    // A second submit of the same version sends nothing.
    const again = await step(r.s, "submit");
    assert.equal((again.body as { sent: boolean }).sent, false);
    assert.equal(r.sim.requests(), 1);
    const events = (await storedEvents(r.s.kv)).map((e) => e.kind);
    assert.ok(events.includes("csv_published") && events.includes("schedules_submitted"));
    // The platform key is in no event.
    assert.ok(!JSON.stringify(await storedEvents(r.s.kv)).includes(r.sim.apiKey));
  } finally {
    await r.close();
  }
});

Deno.test("submit: 500 then 201 → one submission after a retry", async () => {
  const r = await rig();
  try {
    await step(r.s, "aggregate");
    r.sim.failNext(500, "upstream hiccup", 1);
    const sub = await step(r.s, "submit");
    assert.equal(sub.status, 200, JSON.stringify(sub.body));
    assert.equal((sub.body as { receipt: { attempts: number } }).receipt.attempts, 2);
    assert.equal(r.sim.submissions().length, 1);
    assert.equal(r.sim.requests(), 2);
  } finally {
    await r.close();
  }
});

Deno.test("submit: 400 → no retry; the error event quotes the platform's body as text", async () => {
  const r = await rig();
  try {
    await step(r.s, "aggregate");
    const body = `{"error":"schedule rejected","detail":"<b>balancing group unknown</b>"}`;
    r.sim.failNext(400, body, 1);
    const sub = await step(r.s, "submit");
    assert.equal(sub.status, 502);
    assert.match((sub.body as { detail: string }).detail, /refused the submission with 400/);
    assert.equal(r.sim.requests(), 1);
    const err = (await storedEvents(r.s.kv)).find((e) => e.kind === "orchestration_error")!;
    assert.equal(err.level, "error");
    assert.equal((err.data as { platform_body: string }).platform_body, body);
    assert.ok((err.message as string).includes("<b>balancing group unknown</b>"));
    // The claim was released: a later attempt may send.
    const ok = await step(r.s, "submit");
    assert.equal(ok.status, 200);
    assert.equal(r.sim.submissions().length, 1);
  } finally {
    await r.close();
  }
});

Deno.test("orchestrator pass and manual submit at the same moment → exactly one submission", async () => {
  // The running day and DAY only: the other days of the horizon only added a delayed submission
  // each after DAY's.
  const r = await rig({ ORCHESTRATOR_HORIZON_DAYS: "1" });
  try {
    await step(r.s, "aggregate");
    await step(r.s, "publish");
    r.sim.delay(200);
    const [pass, manual] = await Promise.all([
      call(`${r.s.url}/v1/orchestrate`, { method: "POST", headers: proc }),
      step(r.s, "submit"),
    ]);
    assert.equal(pass.status, 200);
    assert.ok([200, 409].includes(manual.status), JSON.stringify(manual.body));
    assert.equal(forDay(r).length, 1);
    assert.equal(r.sim.submissions().filter((x) => x.idempotency_key === `${DAY}-v2`).length, 1);
  } finally {
    await r.close();
  }
});

Deno.test("after gate closure: 409 naming the instant, nothing sent, an event says so", async () => {
  const r = await rig();
  try {
    await step(r.s, "aggregate");
    r.clock.set(Date.parse("2026-11-22T11:00:00Z")); // 12:00 Berlin
    const sub = await step(r.s, "submit");
    assert.equal(sub.status, 409);
    assert.match(
      (sub.body as { detail: string }).detail,
      /Gate closure for delivery day 2026-11-23 was 2026-11-22T11:00:00Z.*nothing was submitted/,
    );
    assert.equal(r.sim.requests(), 0);
    const ev = (await storedEvents(r.s.kv)).find((e) => e.kind === "orchestration_error");
    assert.match(String(ev?.message), /Gate closure/);
  } finally {
    await r.close();
  }
});

Deno.test("orchestrator: runs the missing steps; a newer forecast makes the day stale and the next pass resubmits", async () => {
  const r = await rig();
  try {
    const first = await call(`${r.s.url}/v1/orchestrate`, { method: "POST", headers: proc });
    const day = (first.body as { days: { delivery_day: string; ran: string[] }[] }).days.find((d) =>
      d.delivery_day === DAY
    )!;
    assert.deepEqual(day.ran, ["forecast", "aggregate", "publish", "submit"]);
    assert.equal(forDay(r).length, 1);
    const idle = await call(`${r.s.url}/v1/orchestrate`, { method: "POST", headers: proc });
    assert.equal((idle.body as { days: unknown[] }).days.length, 0, JSON.stringify(idle.body));

    r.clock.advance(30 * 60_000);
    await postForecast(r.s, 1, 150);
    const ov = await call(`${r.s.url}/v1/console/delivery-days`, { headers: proc });
    // The running day is in the passes too (docs/intraday.md): pick the delivery day itself.
    const steps = (ov.body as {
      delivery_days: {
        delivery_day: string;
        steps: Record<string, { stale: boolean; stale_reason: string }>;
      }[];
    }).delivery_days.find((d) => d.delivery_day === DAY)!.steps;
    assert.equal(steps.submitted.stale, true);
    assert.match(
      steps.submitted.stale_reason,
      /newer forecast for 1 market location at 09:30 Berlin/,
    );

    const second = await call(`${r.s.url}/v1/orchestrate`, { method: "POST", headers: proc });
    const d2 = (second.body as { days: { delivery_day: string; ran: string[] }[] }).days.find((d) =>
      d.delivery_day === DAY
    )!;
    assert.deepEqual(d2.ran, ["forecast", "aggregate", "publish", "submit"]);
    const subs = forDay(r);
    assert.equal(subs.length, 2);
    assert.equal(subs[1].idempotency_key, `${DAY}-v3`);
    assert.deepEqual(subs[1].body.schedules[0].quantities, Array(96).fill(0.15));
  } finally {
    await r.close();
  }
});

Deno.test("orchestrator tick: a no-op while stopped; one pass per minute when two replicas tick", async () => {
  const r = await rig();
  try {
    assert.deepEqual(await r.s.bridge.orchestrator.tick("a"), { ran: false, reason: "stopped" });
    await call(`${r.s.url}/v1/console/start`, { method: "POST", headers: proc });
    const first = await r.s.bridge.orchestrator.tick("a");
    const second = await r.s.bridge.orchestrator.tick("b");
    assert.equal(first.ran, true);
    assert.deepEqual(second, { ran: false, reason: "not_leader" });
    assert.equal(forDay(r).length, 1);
    // Every other day of the horizon with market locations was worked on too, each once.
    const days = r.sim.submissions().map((x) => x.body.delivery_day);
    assert.equal(new Set(days).size, days.length);
  } finally {
    await r.close();
  }
});

Deno.test("orchestrator tick: a KV that stays locked is retried, bounded, then an orchestration_error event", async () => {
  const r = await rig();
  try {
    await call(`${r.s.url}/v1/console/start`, { method: "POST", headers: proc });
    const ctx = r.s.bridge.ctx;
    let attempts = 0;
    // The shared SQLite file as another process holding its write lock: every atomic is refused.
    const locked = new Proxy(ctx.kv, {
      get(target, prop) {
        if (prop === "atomic") {
          return () => {
            attempts++;
            throw new TypeError("database is locked");
          };
        }
        const v = Reflect.get(target, prop);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
    // The lease's backoff waits are not spent in real time (a fake sleep); the bound is the same.
    let slept = 0;
    const outcome = await new Orchestrator({ ...ctx, kv: locked }, undefined, {
      leaseSleep: (ms) => {
        slept += ms;
        return Promise.resolve();
      },
    }).tick("replica-x");
    assert.equal(outcome.ran, false);
    assert.equal(outcome.ran === false && outcome.reason, "failed");
    assert.ok(attempts > 1, "the lock was retried");
    assert.ok(slept > 0, "the lease backed off between its attempts");
    // 50 rounds of the lease, then at most STORY_ATTEMPTS of the failure's story (which gives up
    // and stores the event without one: lib/store/repeated_failures.ts).
    assert.ok(attempts <= 50 + STORY_ATTEMPTS, "the retries are bounded");
    const errors = (await storedEvents(r.s.kv)).filter((e) => e.kind === "orchestration_error");
    assert.equal(errors.length, 1);
    assert.equal(errors[0].level, "error");
    assert.match(String(errors[0].message), /^The orchestrator tick of replica-x failed: .*lease/);
    assert.equal(r.sim.submissions().length, 0, "nothing was submitted");
    // The lock is gone: the next tick runs the pass.
    assert.equal((await new Orchestrator(ctx).tick("replica-x")).ran, true);
    assert.equal(forDay(r).length, 1);
  } finally {
    await r.close();
  }
});

Deno.test("two service processes on one KV file tick the same minute → exactly one pass", async () => {
  const r = await rig();
  try {
    await call(`${r.s.url}/v1/console/start`, { method: "POST", headers: proc });
    const dir = r.outbox.slice(0, r.outbox.lastIndexOf("/"));
    const env = {
      PROCESS_API_KEYS: `ops:${PROC}`,
      MARKET_PLATFORM_URL: r.sim.url,
      MARKET_PLATFORM_API_KEY: r.sim.apiKey,
      MARKET_PLATFORM_CA_FILE: `${dir}/ca.pem`,
      BALANCING_GROUP: "11XDE-EXAMPLE--H",
      SENDER_EIC: "11XDE-EXAMPLE--H",
      OUTBOX_DIR: r.outbox,
    };
    const t0 = r.clock.now();
    const minutes = [t0, t0 + 60_000];
    // Each process ticks both minutes, one after the other, started at the same moment.
    const run = (name: string) =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "tests/support/tick_once.ts", r.s.kvPath, minutes.join(","), name],
        env,
        stdout: "piped",
        stderr: "inherit",
      }).output();
    const outcomes: { name: string; at: number; ran: boolean }[] = [];
    for (const o of await Promise.all([run("replica-a"), run("replica-b")])) {
      assert.equal(o.code, 0);
      const lines = new TextDecoder().decode(o.stdout).trim().split("\n");
      outcomes.push(...lines.filter((l) => l.startsWith(`{"name":`)).map((l) => JSON.parse(l)));
    }
    assert.equal(outcomes.length, 4, JSON.stringify(outcomes));
    // Per minute exactly one of the two ran a pass.
    for (const at of minutes) {
      const of = outcomes.filter((o) => o.at === at);
      assert.equal(of.length, 2, JSON.stringify(outcomes));
      assert.equal(of.filter((o) => o.ran).length, 1, JSON.stringify(outcomes));
    }
    assert.equal(forDay(r).length, 1);
  } finally {
    await r.close();
  }
});
