/**
 * The failure paths of publish and submit that a user of the service would notice: network errors
 * retried, a missing balancing group, retries that stop at gate closure, errors retried on the
 * next tick, a crash between receipt and step record, two replicas submitting at once.
 *
 * Real parts only: the app on a temp-file KV over HTTP on 127.0.0.1, the market-platform
 * simulator over TLS, and extra service processes on the same KV file.
 */
import assert from "node:assert/strict";
import { call, storedEvents } from "../support/app.ts";
import {
  BEFORE_GC,
  DAY,
  dayView,
  forDay,
  orchestrate,
  portfolio,
  proc,
  rig,
  step,
} from "../support/day_ahead_rig.ts";

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
      // The last attempt may be cut off by gate closure itself; the 503 is still what is reported.
      /answered 503: maintenance(; the last attempt was cut off at the deadline)? \(gave up after \d+ attempts within 1\.5 s before gate closure 2026-11-22T11:00:00Z\)/,
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

Deno.test("submit: an attempt cut off by the deadline reports the platform's last answer, not our abort", async () => {
  // The budget is on the service's (fake) clock, which the backoff moves and a request does not:
  // the first answer takes 600 ms of real time, the backoff then spends 600–1,000 ms of the 1 s
  // budget, so the second attempt has at most 400 ms left and is cut off before its answer.
  const r = await rig(BEFORE_GC, {
    MARKET_PLATFORM_TIMEOUT_SECONDS: "1",
    MARKET_PLATFORM_BACKOFF_MS: "800",
  });
  try {
    await portfolio(r.s);
    await step(r.s, DAY, "aggregate");
    r.sim.failNext(503, "maintenance", 100_000);
    r.sim.delay(600);
    const sub = await step(r.s, DAY, "submit");
    assert.equal(sub.status, 502);
    assert.match(
      (sub.body as { detail: string }).detail,
      /answered 503: maintenance; the last attempt was cut off at the deadline \(gave up after \d+ attempts within 1 s\)/,
    );
    const err = (await storedEvents(r.s.kv)).find((e) => e.kind === "orchestration_error");
    assert.equal((err?.data as { platform_status: number }).platform_status, 503);
    assert.equal(forDay(r.sim, DAY).length, 0);
  } finally {
    r.sim.delay(0);
    await r.close();
  }
});

Deno.test("orchestrator: a failing step becomes an orchestration_error and is retried on the next tick", async () => {
  const r = await rig(BEFORE_GC);
  try {
    await portfolio(r.s);
    assert.equal(
      (await call(`${r.s.url}/v1/console/start`, { method: "POST", headers: proc })).status,
      200,
    );
    r.sim.failNext(400, "balancing group unknown", 1);
    const first = await r.s.bridge.orchestrator.tick("replica-a");
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
    const second = await r.s.bridge.orchestrator.tick("replica-a");
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
