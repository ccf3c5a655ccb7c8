/**
 * Retention's crash and replica rules (docs/retention.md, "Crash and replicas"): a run that dies
 * between the archive and the deletion leaves the day whole in the store and complete in the
 * archive, and the next tick finishes the deletion; two apps on one KV file prune each day once.
 * @module
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { FakeClock } from "../../lib/clock.ts";
import { addDays, deliveryDay } from "../../lib/domain/delivery_day.ts";
import type { DayPruning } from "../../lib/retention/day_archive.ts";
import { Pruner } from "../../lib/retention/pruner.ts";
import { loadSettings } from "../../lib/settings.ts";
import { DAY_SCOPED_PREFIXES, dayScopedRange, KEYS } from "../../lib/store/keys.ts";
import { startServer, storedEvents, type TestServer } from "../support/app.ts";
import {
  archivedEventIds,
  checkedManifest,
  fastTempDir,
  registerPortfolio,
  retentionEnv,
  simulateDay,
} from "../support/retention_sim.ts";
import { maloId } from "../support/portfolio.ts";

const FIRST = "2024-03-01";

/** Records of `day` still in the store, per day-scoped prefix (only non-zero ones). */
async function recordsOf(kv: Deno.Kv, day: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const p of DAY_SCOPED_PREFIXES) {
    let n = 0;
    for await (const _ of kv.list(dayScopedRange(p, day))) n++;
    if (n) out[p] = n;
  }
  return out;
}

/** Simulates `n` days from {@link FIRST}, then moves the clock 40 days past the last one. */
async function daysThenLater(s: TestServer, clock: FakeClock, n: number): Promise<string[]> {
  await registerPortfolio(s);
  const days = Array.from({ length: n }, (_, i) => addDays(FIRST, i));
  for (const d of days) await simulateDay(s, clock, d);
  clock.set(deliveryDay(addDays(days.at(-1)!, 40)).start.epochMilliseconds);
  return days;
}

const WHOLE = {
  days: 1,
  forecasts: 3,
  aggregates: 1,
  schedule_versions: 2,
  tso_status: 2,
};

Deno.test("a crash between archive and delete leaves the day whole and archived; the next tick finishes it", async () => {
  await using tmp = await fastTempDir("retention-crash-");
  const clock = new FakeClock(Date.parse("2024-02-20T08:00:00Z"));
  const s = await startServer(retentionEnv(tmp.path, 30), {
    clock,
    kvPath: `${tmp.path}/bridge.kv`,
  });
  try {
    const [d1, d2] = await daysThenLater(s, clock, 2);
    const crashing = new Pruner(s.bridge.ctx, {
      budgetMs: 10_000,
      beforeDelete: () => {
        throw new Error("simulated crash in the delete phase");
      },
    });
    const r = await crashing.run("replica-crashing");
    assert.equal(r.error, "simulated crash in the delete phase");
    assert.deepEqual(r.days_pruned, []);
    // Whole in the store, complete in the archive, marked for deletion.
    assert.deepEqual(await recordsOf(s.kv, d1), WHOLE);
    const m = await checkedManifest(`${tmp.path}/archive`, d1);
    assert.equal(m.counts.forecasts, 3);
    const mark = await s.kv.get<DayPruning>(KEYS.retentionDay(d1));
    assert.equal(mark.value?.phase, "pruning");
    // The crashed run's lease does not block the next one (released, or expired after 5 min).
    await s.bridge.orchestrator.tick("replica-b");
    assert.equal(s.bridge.orchestrator.lastPrune?.error, undefined);
    assert.deepEqual(s.bridge.orchestrator.lastPrune?.days_pruned, [d1, d2]);
    for (const d of [d1, d2]) {
      assert.deepEqual(await recordsOf(s.kv, d), {}, d);
      assert.equal((await s.kv.get(KEYS.retentionDay(d))).value, null);
      assert.deepEqual((await checkedManifest(`${tmp.path}/archive`, d)).counts, {
        ...WHOLE,
        submissions: 0,
        schedule_history: 0,
        platform_pending: 0,
        actuals: 0,
        balancing_group_sums: 0,
        imbalance_prices: 0,
        intraday_prices: 0,
        intraday_trades: 0,
        learned_forecasts: 0,
        metering_point_sums: 0,
        status_request: 0,
        weather: 0,
        weather_latest: 0,
      });
    }
    const archivedEvents = (await storedEvents(s.kv)).filter((e) => e.kind === "day_archived");
    assert.deepEqual(archivedEvents.map((e) => e.delivery_day), [d1, d2]);
  } finally {
    await s.close();
  }
});

Deno.test("a run that ends mid-archive leaves the day whole; the next tick goes on from the stored stage", async () => {
  await using tmp = await fastTempDir("retention-crash2-");
  const clock = new FakeClock(Date.parse("2024-02-20T08:00:00Z"));
  const s = await startServer(retentionEnv(tmp.path, 30), {
    clock,
    kvPath: `${tmp.path}/bridge.kv`,
  });
  try {
    const [d1] = await daysThenLater(s, clock, 1);
    // A budget of 0: exactly one step (the records), as a run cut short would leave it.
    const r1 = await new Pruner(s.bridge.ctx, { budgetMs: 0 }).run("replica-a");
    assert.equal(r1.error, undefined);
    assert.equal((await s.kv.get<DayPruning>(KEYS.retentionDay(d1))).value?.stage, "forecasts");
    assert.deepEqual(await recordsOf(s.kv, d1), WHOLE, "archiving leaves the day whole");
    await s.bridge.orchestrator.tick("replica-a");
    assert.deepEqual(await recordsOf(s.kv, d1), {});
    await checkedManifest(`${tmp.path}/archive`, d1);
  } finally {
    await s.close();
  }
});

Deno.test("two apps on one KV file prune each day once; events archived once", async () => {
  await using tmp = await fastTempDir("retention-replicas-");
  const env = retentionEnv(tmp.path, 30);
  const clockA = new FakeClock(Date.parse("2024-02-20T08:00:00Z"));
  const a = await startServer(env, { clock: clockA, kvPath: `${tmp.path}/bridge.kv` });
  const clockB = new FakeClock(clockA.now());
  const kvB = await Deno.openKv(`${tmp.path}/bridge.kv`);
  const b = await createApp({
    settings: loadSettings({ ...env, KV_PATH: `${tmp.path}/bridge.kv` }),
    kv: kvB,
    clock: clockB,
  });
  try {
    const days = await daysThenLater(a, clockA, 6);
    clockB.set(clockA.now());
    const pruned: string[] = [];
    const ran: boolean[] = [];
    for (let round = 0; round < 5; round++) {
      await Promise.all([
        a.bridge.orchestrator.tick("replica-a"),
        b.orchestrator.tick("replica-b"),
      ]);
      for (const o of [a.bridge.orchestrator, b.orchestrator]) {
        assert.equal(o.lastPrune?.error, undefined);
        pruned.push(...o.lastPrune!.days_pruned);
        ran.push(o.lastPrune!.ran);
      }
    }
    assert.deepEqual(pruned.sort(), days, "every day pruned by exactly one replica");
    assert.ok(ran.includes(false), "the lease kept a replica out at least once");
    const events = await storedEvents(a.kv);
    const archivedEvents = events.filter((e) => e.kind === "day_archived");
    assert.deepEqual(archivedEvents.map((e) => e.delivery_day).sort(), days, "each day once");
    for (const d of days) {
      assert.deepEqual(await recordsOf(a.kv, d), {});
      await checkedManifest(`${tmp.path}/archive`, d);
    }
    // Events: archive + store = 1..head, each once.
    const ids = [...await archivedEventIds(`${tmp.path}/archive`), ...events.map((e) => e.id)];
    const head = await a.bridge.ctx.events.head();
    assert.deepEqual(
      ids.map(Number).sort((x, y) => x - y),
      Array.from({ length: head }, (_, i) => i + 1),
    );
  } finally {
    await b.close();
    kvB.close();
    await a.close();
  }
});

Deno.test("a day of 2,500 customer forecasts is archived and pruned in many small steps", async () => {
  await using tmp = await fastTempDir("retention-big-");
  const clock = new FakeClock(Date.parse("2024-02-20T08:00:00Z"));
  const s = await startServer(retentionEnv(tmp.path, 30), {
    clock,
    kvPath: `${tmp.path}/bridge.kv`,
  });
  try {
    const [day] = await daysThenLater(s, clock, 1);
    const now = clock.now();
    // 2,497 more forecasts (unregistered locations: stored, not aggregated), as stored records.
    for (let from = 10; from < 2507; from += 500) {
      const op = s.kv.atomic();
      for (let n = from; n < Math.min(from + 500, 2507); n++) {
        op.set(KEYS.forecast(day, maloId(n)), {
          values: Array.from({ length: 96 }, (_, q) => n + q / 4),
          source: "customer",
          received_at: new Date(now).toISOString(),
          by: "acme",
        });
      }
      assert.ok((await op.commit()).ok);
    }
    const pruner = new Pruner(s.bridge.ctx, { budgetMs: 0 }); // one step per run
    const stages: string[] = [];
    let runs = 0;
    for (; runs < 40; runs++) {
      const r = await pruner.run("replica-a");
      assert.equal(r.error, undefined);
      assert.equal(r.steps, 1);
      if (r.days_pruned.length) break;
      const st = (await s.kv.get<DayPruning>(KEYS.retentionDay(day))).value!;
      stages.push(st.phase === "pruning" ? "pruning" : st.stage);
      if (st.phase === "pruning") {
        assert.equal(Object.keys(await recordsOf(s.kv, day)).length > 0, true);
      }
    }
    // records, 3 forecast parts, actuals (none), manifest, verify, then 6 atomics of ≤ 500
    // deletions.
    assert.deepEqual(stages.slice(0, 7), [
      "forecasts",
      "forecasts",
      "forecasts",
      "actuals",
      "manifest",
      "verify",
      "pruning",
    ]);
    assert.ok(runs >= 10 && runs < 40, `runs ${runs}`);
    assert.deepEqual(await recordsOf(s.kv, day), {});
    const m = await checkedManifest(`${tmp.path}/archive`, day);
    assert.equal(m.counts.forecasts, 2500);
    const parts = m.files.filter((f) => f.path.startsWith("forecasts-"));
    assert.deepEqual(parts.map((f) => f.rows), [1000, 1000, 500]);
  } finally {
    await s.close();
  }
});
