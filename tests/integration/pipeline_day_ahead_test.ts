/**
 * The day-ahead job end to end on the clock-change days, and the failure paths of publish and
 * submit that a user of the service would notice: network errors retried, retries that stop at
 * gate closure, errors retried on the next tick, a crash between receipt and step record, two
 * replicas submitting at once, and master-data changes that turn a submitted day stale.
 *
 * Real parts only: the app on a temp-file KV over HTTP on 127.0.0.1, the market-platform
 * simulator over TLS (its self-signed certificate trusted through MARKET_PLATFORM_CA_FILE), the
 * local outbox, and extra service processes on the same KV file.
 */
import assert from "node:assert/strict";
import { startSimulator } from "../../dev/market_platform_simulator.ts";
import { FakeClock } from "../../lib/clock.ts";
import { deliveryDay } from "../../lib/domain/delivery_day.ts";
import { forecastValues, type StoredForecast } from "../../lib/pipeline/forecasts.ts";
import { call, startServer, storedEvents, type TestServer } from "../support/app.ts";
import { AREAS, maloId } from "../support/portfolio.ts";

const PROC = "proc-secret-0001-aaaaaaaa";
const EXT = "ext-secret-0001-cccccccccc";
const proc = { "x-api-key": PROC, "content-type": "application/json" };
const ext = { "x-api-key": EXT, "content-type": "application/json" };

type Sim = Awaited<ReturnType<typeof startSimulator>>;
type StepView = {
  version: number;
  by: string;
  stale: boolean;
  stale_reason: string | null;
  detail: Record<string, unknown>;
} | null;
type DayView = {
  delivery_day: string;
  input_version: number;
  last_input: { source: string; market_locations: number } | null;
  steps: Record<"forecast" | "aggregated" | "published" | "submitted", StepView>;
};

interface Rig {
  s: TestServer;
  sim: Sim;
  clock: FakeClock;
  dir: string;
  outbox: string;
  /** Environment of the service (for extra processes on the same KV file). */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * Simulator + service with the clock at `nowIso`. `platformUrl` replaces the simulator's URL
 * (e.g. a proxy in front of it).
 */
async function rig(
  nowIso: string,
  extraEnv: Record<string, string> = {},
  platformUrl?: (sim: Sim) => string,
): Promise<Rig> {
  const sim = await startSimulator();
  const dir = await Deno.makeTempDir({ prefix: "bridge-dayahead-" });
  await Deno.writeTextFile(`${dir}/ca.pem`, sim.caCert);
  const clock = new FakeClock(Date.parse(nowIso));
  const env = {
    PROCESS_API_KEYS: `ops:${PROC}`,
    EXTERNAL_API_KEYS: `acme:${EXT}`,
    RATE_LIMIT_PER_MINUTE: "0",
    MARKET_PLATFORM_URL: platformUrl ? platformUrl(sim) : sim.url,
    MARKET_PLATFORM_API_KEY: sim.apiKey,
    MARKET_PLATFORM_CA_FILE: `${dir}/ca.pem`,
    MARKET_PLATFORM_BACKOFF_MS: "10",
    MARKET_PLATFORM_TIMEOUT_SECONDS: "5",
    BALANCING_GROUP: "11XDE-EXAMPLE--H",
    SENDER_EIC: "11XDE-EXAMPLE--H",
    OUTBOX_DIR: `${dir}/outbox`,
    ...extraEnv,
  };
  let s: TestServer;
  try {
    s = await startServer(env, { clock });
  } catch (err) {
    await sim.close();
    throw err;
  }
  return {
    s,
    sim,
    clock,
    dir,
    outbox: `${dir}/outbox`,
    env,
    async close() {
      await s.close();
      await sim.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function putLocation(s: TestServer, n: number, body: Record<string, unknown>) {
  const r = await call(`${s.url}/v1/market-locations/${maloId(n)}`, {
    method: "PUT",
    headers: ext,
    body: JSON.stringify(body),
  });
  assert.ok(r.status === 200 || r.status === 201, JSON.stringify(r.body));
}

async function postForecast(s: TestServer, n: number, day: string, values: number[]) {
  const r = await call(`${s.url}/v1/forecasts`, {
    method: "POST",
    headers: ext,
    body: JSON.stringify({
      market_location_id: maloId(n),
      delivery_day: day,
      unit: "kW",
      values,
    }),
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

const step = (s: TestServer, day: string, name: string) =>
  call(`${s.url}/v1/delivery-days/${day}/${name}`, { method: "POST", headers: proc });

const orchestrate = (s: TestServer) =>
  call(`${s.url}/v1/orchestrate`, { method: "POST", headers: proc });

async function dayView(s: TestServer, day: string): Promise<DayView> {
  const r = await call(`${s.url}/v1/console/delivery-days`, { headers: proc });
  const found = (r.body as { delivery_days: DayView[] }).delivery_days.find((d) =>
    d.delivery_day === day
  );
  assert.ok(found, `no overview entry for ${day}`);
  return found;
}

const forDay = (sim: Sim, day: string) =>
  sim.submissions().filter((x) => x.body.delivery_day === day);

for (const [day, n] of [["2026-03-29", 92], ["2026-10-25", 100]] as const) {
  Deno.test(`clock-change day ${day} (${n} quarter-hours) through ingestion, generation, aggregation, the published CSV and the submitted schedule`, async () => {
    // Two days before, 09:00 Berlin: the gate closure of the day is ahead.
    const now = Temporal.PlainDate.from(day).subtract({ days: 2 })
      .toZonedDateTime({ timeZone: "Europe/Berlin", plainTime: "09:00" }).toInstant();
    const r = await rig(now.toString(), {
      ACTIVE_CONTROL_AREAS: `${AREAS.amprion},${AREAS.tennet}`,
    });
    try {
      await putLocation(r.s, 1, {
        control_area: AREAS.amprion,
        direction: "consumption",
        standard_load_profile: "H0",
        annual_kwh: 4000,
      });
      await putLocation(r.s, 2, {
        control_area: AREAS.tennet,
        direction: "consumption",
        standard_load_profile: "G0",
        annual_kwh: 50000,
      });
      await putLocation(r.s, 3, { control_area: AREAS.amprion, direction: "generation" });
      // The PV park's customer forecast as CSV: kW = the local hour, so each row says when it is.
      const d = deliveryDay(day);
      const rows = d.quarterHours.map((q) => {
        const local = q.toZonedDateTimeISO("Europe/Berlin");
        return `${maloId(3)},${local.toString({ timeZoneName: "never" })},${local.hour}`;
      });
      const csvIn = await call(`${r.s.url}/v1/forecasts`, {
        method: "POST",
        headers: { ...ext, "content-type": "text/csv" },
        body: `market_location_id,start,kw\r\n${rows.join("\r\n")}\r\n`,
      });
      assert.equal(csvIn.status, 200, JSON.stringify(csvIn.body));

      const status = await call(`${r.s.url}/v1/console/status`, { headers: proc });
      assert.equal(
        (status.body as { orchestrator: { state: string } }).orchestrator.state,
        "stopped",
      );
      const pass = await orchestrate(r.s); // manual override: works while stopped
      assert.equal(pass.status, 200);
      const ran = (pass.body as { days: { delivery_day: string; ran: string[] }[] }).days
        .find((x) => x.delivery_day === day);
      assert.deepEqual(ran?.ran, ["forecast", "aggregate", "publish", "submit"]);

      const view = await dayView(r.s, day);
      const version = view.input_version;
      assert.equal(view.steps.submitted?.version, version);

      // Stored forecasts: one value per real quarter-hour.
      const stored = async (i: number) => ({
        values: forecastValues(
          (await r.s.kv.get<StoredForecast>(["forecasts", day, maloId(i)])).value!,
          day,
        ),
      });
      const h0 = await stored(1);
      const pv = await stored(3);
      assert.equal(h0.values.length, n);
      assert.equal(pv.values.length, n);

      // The published CSV: n rows, UTC 15 minutes apart, local times with the right offsets.
      const file = `${r.outbox}/open_position_${day}_v${version}.csv`;
      assert.equal(view.steps.published?.detail.location, file);
      const lines = (await Deno.readTextFile(file)).split("\r\n").filter((l) => l !== "");
      assert.equal(lines.length, n + 1);
      assert.deepEqual(lines[0].split(","), [
        "quarter_hour_start_utc",
        "quarter_hour_start_local",
        AREAS.amprion,
        AREAS.tennet,
      ]);
      const cells = lines.slice(1).map((l) => l.split(","));
      cells.forEach((c, i) => {
        assert.equal(c[0], d.quarterHours[i].toString());
        assert.equal(Temporal.Instant.from(c[1]).toString(), c[0], `row ${i + 1} local = UTC`);
      });
      const locals = cells.map((c) => c[1].slice(11));
      if (n === 92) {
        assert.ok(!locals.some((t) => t.startsWith("02:")), "02:00–03:00 does not exist");
        assert.deepEqual(locals.slice(7, 9), ["01:45:00+01:00", "03:00:00+02:00"]);
      } else {
        assert.deepEqual(locals.slice(8, 16), [
          "02:00:00+02:00",
          "02:15:00+02:00",
          "02:30:00+02:00",
          "02:45:00+02:00",
          "02:00:00+01:00",
          "02:15:00+01:00",
          "02:30:00+01:00",
          "02:45:00+01:00",
        ]);
      }
      // Consumption positive, generation negative: amprion = H0 − PV, per real quarter-hour.
      cells.forEach((c, i) => {
        const expected = Math.round((h0.values[i] - pv.values[i]) * 1000) / 1e6;
        assert.equal(Number(c[2]), expected, `amprion row ${i + 1}`);
      });

      // The submitted schedule: the same n values per control area, the day's UTC interval.
      const subs = forDay(r.sim, day);
      assert.equal(subs.length, 1);
      const body = subs[0].body as typeof subs[0]["body"] & {
        time_interval: { start: string; end: string };
        resolution: string;
      };
      assert.equal(subs[0].idempotency_key, `${day}-v${version}`);
      assert.deepEqual(body.time_interval, { start: d.start.toString(), end: d.end.toString() });
      assert.equal(body.resolution, "PT15M");
      for (const [col, area] of [[2, AREAS.amprion], [3, AREAS.tennet]] as const) {
        const q = body.schedules.find((x) => x.control_area === area)!.quantities;
        assert.equal(q.length, n);
        assert.deepEqual(q, cells.map((c) => Number(c[col])));
      }
      const op = await call(`${r.s.url}/v1/delivery-days/${day}/open-position`, { headers: ext });
      assert.deepEqual(
        (op.body as { areas: Record<string, number[]> }).areas[AREAS.amprion],
        body.schedules.find((x) => x.control_area === AREAS.amprion)!.quantities,
      );
    } finally {
      await r.close();
    }
  });
}

/** A TCP proxy to `targetPort` that closes the first `drop` connections at once. */
function droppingProxy(targetPort: number, drop: number) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  const pipes: Promise<unknown>[] = [];
  let dropped = 0;
  const closeQuietly = (c: Deno.Conn) => {
    open.delete(c);
    try {
      c.close();
    } catch { /* already closed */ }
  };
  const accepting = (async () => {
    for await (const conn of listener) {
      if (dropped < drop) {
        dropped++;
        closeQuietly(conn);
        continue;
      }
      open.add(conn);
      pipes.push((async () => {
        let up: Deno.Conn | undefined;
        try {
          up = await Deno.connect({ hostname: "127.0.0.1", port: targetPort });
          open.add(up);
          await Promise.all([conn.readable.pipeTo(up.writable), up.readable.pipeTo(conn.writable)]);
        } catch {
          /* a side closed */
        } finally {
          closeQuietly(conn);
          if (up) closeQuietly(up);
        }
      })());
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    dropped: () => dropped,
    async close() {
      listener.close();
      for (const c of [...open]) closeQuietly(c);
      await accepting;
      await Promise.allSettled(pipes);
    },
  };
}

const DAY = "2026-11-23";
const BEFORE_GC = "2026-11-22T08:00:00Z"; // 09:00 Berlin; gate closure 2026-11-22T11:00:00Z

/** Two market locations with forecasts for DAY. */
async function portfolio(s: TestServer) {
  await putLocation(s, 1, { control_area: AREAS.amprion, direction: "consumption" });
  await putLocation(s, 2, { control_area: AREAS.tennet, direction: "consumption" });
  await postForecast(s, 1, DAY, Array(96).fill(100));
  await postForecast(s, 2, DAY, Array(96).fill(200));
}

Deno.test("submit: network errors are retried; one submission arrives", async () => {
  let proxy: ReturnType<typeof droppingProxy> | undefined;
  const r = await rig(BEFORE_GC, {}, (sim) => {
    proxy = droppingProxy(Number(new URL(sim.url).port), 2);
    return `https://127.0.0.1:${proxy.port}`;
  });
  try {
    await portfolio(r.s);
    assert.equal((await step(r.s, DAY, "aggregate")).status, 200);
    const sub = await step(r.s, DAY, "submit");
    assert.equal(sub.status, 200, JSON.stringify(sub.body));
    const receipt = (sub.body as { receipt: { attempts: number; status: number } }).receipt;
    assert.equal(proxy!.dropped(), 2);
    assert.equal(receipt.attempts, 3, "two dropped connections, then the platform answered");
    assert.equal(receipt.status, 201);
    assert.equal(forDay(r.sim, DAY).length, 1);
  } finally {
    await r.close();
    await proxy?.close();
  }
});

Deno.test("submit: without balancing group or sender EIC nothing is sent; 409 names what is missing", async () => {
  const r = await rig(BEFORE_GC, { BALANCING_GROUP: "" });
  try {
    await portfolio(r.s);
    await step(r.s, DAY, "aggregate");
    const sub = await step(r.s, DAY, "submit");
    assert.equal(sub.status, 409);
    assert.equal(
      (sub.body as { detail: string }).detail,
      "A schedule needs the balancing group and the sender EIC; balancing_group is not configured; nothing was submitted.",
    );
    assert.equal(r.sim.requests(), 0);
    const err = (await storedEvents(r.s.kv)).find((e) => e.kind === "orchestration_error");
    assert.equal(err?.level, "warning");
  } finally {
    await r.close();
  }
});

Deno.test("submit: retries stop at gate closure; nothing is sent after it", async () => {
  // 1.5 s before gate closure; the budget alone (30 s) would allow many more retries.
  const r = await rig("2026-11-22T10:59:58.500Z", { MARKET_PLATFORM_TIMEOUT_SECONDS: "30" });
  try {
    await portfolio(r.s);
    await step(r.s, DAY, "aggregate");
    r.sim.failNext(503, "maintenance", 100_000);
    const t0 = Date.now();
    const sub = await step(r.s, DAY, "submit");
    const elapsed = Date.now() - t0;
    assert.equal(sub.status, 502);
    assert.match(
      (sub.body as { detail: string }).detail,
      /answered 503: maintenance \(gave up after \d+ attempts within 1\.5 s before gate closure 2026-11-22T11:00:00Z\)/,
    );
    assert.ok(elapsed < 4_000, `stopped after ${elapsed} ms, not at the 30 s budget`);
    assert.ok(r.sim.requests() > 1, "5xx was retried until then");
    assert.equal(forDay(r.sim, DAY).length, 0);
    const err = (await storedEvents(r.s.kv)).find((e) => e.kind === "orchestration_error");
    assert.equal((err?.data as { platform_status: number }).platform_status, 503);
  } finally {
    await r.close();
  }
});

Deno.test("orchestrator: a failing step becomes an orchestration_error and is retried on the next tick", async () => {
  const r = await rig(BEFORE_GC);
  try {
    const { tick } = await import("../../lib/orchestrator/orchestrator.ts");
    await portfolio(r.s);
    assert.equal(
      (await call(`${r.s.url}/v1/console/start`, { method: "POST", headers: proc })).status,
      200,
    );
    r.sim.failNext(400, "balancing group unknown", 1);
    const first = await tick(r.s.bridge.ctx, "replica-a");
    assert.equal(first.ran, true);
    const failed = first.ran ? first.report.days.find((d) => d.delivery_day === DAY) : undefined;
    assert.equal(failed?.failed?.step, "submit");
    assert.deepEqual(failed?.ran, ["forecast", "aggregate", "publish"]);
    const err = (await storedEvents(r.s.kv)).filter((e) =>
      e.kind === "orchestration_error" && e.delivery_day === DAY
    );
    assert.equal(err.length, 1);
    assert.equal(err[0].caller, "orchestrator");
    assert.match(String(err[0].message), /balancing group unknown/);
    assert.equal((await dayView(r.s, DAY)).steps.submitted, null);

    r.clock.advance(60_000);
    const second = await tick(r.s.bridge.ctx, "replica-a");
    const retried = second.ran ? second.report.days.find((d) => d.delivery_day === DAY) : undefined;
    assert.deepEqual(retried?.ran, ["submit"]);
    assert.equal(forDay(r.sim, DAY).length, 1);
    const view = await dayView(r.s, DAY);
    assert.equal(view.steps.submitted?.version, view.input_version);
    assert.equal(view.steps.submitted?.by, "orchestrator");
  } finally {
    await r.close();
  }
});

Deno.test("submit: a receipt stored by a submitter that stopped before recording the step is recorded, not resent", async () => {
  const r = await rig(BEFORE_GC);
  try {
    await portfolio(r.s);
    await step(r.s, DAY, "aggregate");
    const version = (await dayView(r.s, DAY)).input_version;
    // What a replica leaves behind when it dies right after storing the platform's receipt.
    await r.s.kv.set(["submissions", DAY, version], {
      state: "done",
      version,
      claimed_by: "replica-that-died",
      claimed_at: "2026-11-22T07:59:00.000Z",
      lease_until: 0,
      receipt: {
        status: 201,
        body: { submission_id: "earlier" },
        attempts: 1,
        idempotency_key: `${DAY}-v${version}`,
      },
    });
    assert.equal((await dayView(r.s, DAY)).steps.submitted, null);
    const pass = await orchestrate(r.s);
    assert.equal(pass.status, 200);
    assert.equal(forDay(r.sim, DAY).length, 0, "nothing sent twice");
    const view = await dayView(r.s, DAY);
    assert.equal(view.steps.submitted?.version, version);
    assert.equal(view.steps.submitted?.by, "replica-that-died");
    assert.deepEqual(view.steps.submitted?.detail.receipt, { submission_id: "earlier" });
    const idle = await orchestrate(r.s);
    assert.equal(
      (idle.body as { days: { delivery_day: string }[] }).days.filter((d) => d.delivery_day === DAY)
        .length,
      0,
    );
  } finally {
    await r.close();
  }
});

Deno.test("two service processes submit the same version at the same moment → one submission", async () => {
  const r = await rig(BEFORE_GC);
  try {
    await portfolio(r.s);
    await step(r.s, DAY, "aggregate");
    r.sim.delay(400);
    const run = (name: string) =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          "tests/support/tick_once.ts",
          r.s.kvPath,
          String(r.clock.now()),
          name,
          "submit",
          DAY,
        ],
        env: r.env,
        stdout: "piped",
        stderr: "inherit",
      }).output();
    const outs = await Promise.all([run("replica-a"), run("replica-b")]);
    const results = outs.map((o) => {
      assert.equal(o.code, 0);
      return JSON.parse(new TextDecoder().decode(o.stdout).trim().split("\n").pop()!) as {
        status: number;
        sent: boolean | null;
      };
    });
    assert.equal(results.filter((x) => x.sent === true).length, 1, JSON.stringify(results));
    assert.ok(results.every((x) => x.status === 200 || x.status === 409), JSON.stringify(results));
    assert.equal(r.sim.requests(), 1);
    assert.equal(forDay(r.sim, DAY).length, 1);
  } finally {
    await r.close();
  }
});

Deno.test("master data: a market location moving to another area makes the submitted day stale; the next pass resubmits", async () => {
  const r = await rig(BEFORE_GC, { ACTIVE_CONTROL_AREAS: `${AREAS.amprion},${AREAS.tennet}` });
  try {
    await portfolio(r.s);
    await orchestrate(r.s);
    const before = await dayView(r.s, DAY);
    assert.equal(before.steps.submitted?.stale, false);
    assert.equal(forDay(r.sim, DAY).length, 1);

    // Re-sending identical master data changes nothing.
    await putLocation(r.s, 1, { control_area: AREAS.amprion, direction: "consumption" });
    assert.equal((await dayView(r.s, DAY)).input_version, before.input_version);

    r.clock.advance(15 * 60_000); // 09:15 Berlin
    await putLocation(r.s, 1, { control_area: AREAS.tennet, direction: "consumption" });
    const stale = await dayView(r.s, DAY);
    assert.equal(stale.input_version, before.input_version + 1);
    assert.equal(stale.last_input?.source, "master_data");
    for (const name of ["aggregated", "published", "submitted"] as const) {
      assert.equal(stale.steps[name]?.stale, true, name);
      assert.match(
        String(stale.steps[name]?.stale_reason),
        /^master data changed for 1 market location at 09:15/,
      );
    }
    const pass = await orchestrate(r.s);
    const ran = (pass.body as { days: { delivery_day: string; ran: string[] }[] }).days
      .find((d) => d.delivery_day === DAY);
    assert.deepEqual(ran?.ran, ["forecast", "aggregate", "publish", "submit"]);
    const subs = forDay(r.sim, DAY);
    assert.equal(subs.length, 2);
    assert.equal(subs[1].idempotency_key, `${DAY}-v${stale.input_version}`);
    const q = (area: string) =>
      subs[1].body.schedules.find((x) => x.control_area === area)!.quantities;
    assert.deepEqual(q(AREAS.amprion), Array(96).fill(0));
    assert.deepEqual(q(AREAS.tennet), Array(96).fill(0.3));

    // Removing a profile removes the profile forecast it had produced.
    r.clock.advance(60_000);
    await putLocation(r.s, 3, {
      control_area: AREAS.amprion,
      direction: "consumption",
      standard_load_profile: "G0",
      annual_kwh: 100_000,
    });
    await orchestrate(r.s);
    const g0 = forDay(r.sim, DAY).at(-1)!.body.schedules.find((x) =>
      x.control_area === AREAS.amprion
    )!;
    assert.ok(g0.quantities.every((v) => v > 0), "G0 profile forecast in amprion");
    await putLocation(r.s, 3, { control_area: AREAS.amprion, direction: "consumption" });
    await orchestrate(r.s);
    assert.equal((await r.s.kv.get(["forecasts", DAY, maloId(3)])).value, null);
    const last = forDay(r.sim, DAY).at(-1)!.body.schedules.find((x) =>
      x.control_area === AREAS.amprion
    )!;
    assert.deepEqual(last.quantities, Array(96).fill(0));
    // Deleting a location marks the day stale too.
    const v = (await dayView(r.s, DAY)).input_version;
    assert.equal(
      (await call(`${r.s.url}/v1/market-locations/${maloId(2)}`, {
        method: "DELETE",
        headers: ext,
      }))
        .status,
      204,
    );
    assert.equal((await dayView(r.s, DAY)).input_version, v + 1);
  } finally {
    await r.close();
  }
});

Deno.test("largest batches: 500 market locations and 500 forecasts of a 100-quarter-hour day, each in one request", async () => {
  const r = await rig(BEFORE_GC, { ACTIVE_CONTROL_AREAS: AREAS.amprion });
  try {
    const day = "2027-10-31"; // 100 quarter-hours
    await portfolio(r.s);
    await step(r.s, DAY, "aggregate");
    const locations = Array.from({ length: 500 }, (_, i) => ({
      malo_id: maloId(1000 + i),
      control_area: AREAS.amprion,
      direction: "consumption",
    }));
    const put = await call(`${r.s.url}/v1/market-locations`, {
      method: "PUT",
      headers: ext,
      body: JSON.stringify({ market_locations: locations }),
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.deepEqual(put.body, { created: 500, replaced: 0, unchanged: 0 });
    const view = await dayView(r.s, DAY);
    assert.equal(view.steps.aggregated?.stale, true, "the aggregated day turned stale");
    assert.equal(view.last_input?.market_locations, 500);

    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const forecasts = locations.map((l) => ({
      market_location_id: l.malo_id,
      delivery_day: day,
      unit: "kW",
      values: Array.from({ length: 100 }, () => random() * 10_000),
    }));
    const posted = await call(`${r.s.url}/v1/forecasts`, {
      method: "POST",
      headers: ext,
      body: JSON.stringify({ forecasts }),
    });
    assert.equal(posted.status, 200, JSON.stringify(posted.body).slice(0, 300));
    assert.deepEqual((posted.body as { results: unknown[] }).results, [
      { delivery_day: day, changed: 500, unchanged: 0, input_version: 1 },
    ]);
    assert.equal((await step(r.s, day, "aggregate")).status, 200);
    const op = await call(`${r.s.url}/v1/delivery-days/${day}/open-position`, { headers: ext });
    const mw = (op.body as { areas: Record<string, number[]> }).areas[AREAS.amprion];
    assert.equal(mw.length, 100);
    const sum = (i: number) => forecasts.reduce((acc, f) => acc + f.values[i], 0) / 1000;
    for (const i of [0, 8, 12, 99]) assert.ok(Math.abs(mw[i] - sum(i)) < 1e-5, `quarter-hour ${i}`);
  } finally {
    await r.close();
  }
});
