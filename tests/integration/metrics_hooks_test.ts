/**
 * The state gauges fed by other parts (docs/metrics.md): today's locked deviation per control area
 * from the day's schedules (the Berlin date by the app clock), and the store's size facts from
 * retention — absent while unknown, the values the test stored once known; `promtool check
 * metrics` stays clean with them.
 *
 * Real parts: the app on a temp-file KV over HTTP on 127.0.0.1, a fake clock, Debian's `promtool`.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { deliveryDay } from "../../lib/domain/delivery_day.ts";
import { markSent } from "../../lib/fahrplan/tso_status.ts";
import { type Aggregate, aggregateKey } from "../../lib/pipeline/aggregate.ts";
import type { RetentionFacts } from "../../lib/retention/facts.ts";
import { KEYS } from "../../lib/store/keys.ts";
import { startServer, type TestServer } from "../support/app.ts";
import { keysEnv, PROC } from "../support/keys.ts";
import { sample } from "../support/metrics.ts";
import { promtool, PROMTOOL_PATH, skipWithout } from "../support/prometheus.ts";

/** 2026-11-25 10:00 Berlin (CET): quarter-hours starting before 10:15 are frozen (lead 15). */
const NOW = Date.parse("2026-11-25T09:00:00Z");
const TODAY = "2026-11-25";
const A = "10YDE-RWENET---I";
const B = "10YDE-EON------1";

async function scrape(s: TestServer): Promise<string> {
  const r = await fetch(`${s.url}/metrics`, { headers: { "x-api-key": PROC } });
  assert.equal(r.status, 200);
  return await r.text();
}

/** Stores, before the app starts, today's aggregate (A: 2 MW, B: −4 MW) and A's document. */
async function prepare(kvPath: string, facts: RetentionFacts | null): Promise<void> {
  const kv = await Deno.openKv(kvPath);
  try {
    const qh = deliveryDay(TODAY).quarterHours;
    const agg: Aggregate = {
      delivery_day: TODAY,
      version: 1,
      computed_at: new Date(NOW - 86_400_000).toISOString(),
      unit: "MW",
      quarter_hours: qh.map((q) => q.toString()),
      areas: { [A]: qh.map(() => 2), [B]: qh.map(() => -4) },
      counts: { market_locations: 2, inactive_area: 0, missing_forecast: 0, unknown_location: 0 },
    };
    await kv.set(aggregateKey(TODAY), agg);
    // A's schedule is at the TSO; B has none, so B has no locked deviation to show.
    await markSent(kv, TODAY, {
      control_area: A,
      receiver: "10XDE-RWENET---W",
      version: 1,
      file: "f.xml",
      at: new Date(NOW - 86_400_000).toISOString(),
    });
    if (facts) await kv.set(KEYS.retentionFacts, facts);
  } finally {
    kv.close();
  }
}

async function withApp(facts: RetentionFacts | null, fn: (text: string) => void | Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "bridge-hooks-" });
  const kvPath = `${dir}/bridge.kv`;
  await prepare(kvPath, facts);
  const s = await startServer(keysEnv({ ACTIVE_CONTROL_AREAS: `${A},${B}` }), {
    clock: new FakeClock(NOW),
    kvPath,
  });
  try {
    await fn(await scrape(s));
  } finally {
    await s.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const FACTS: RetentionFacts = {
  days_kept: 400,
  oldest_day: "2025-10-21",
  events_kept: 12_345,
  oldest_event_id: 77,
  counted_at: "2026-11-25T08:00:00.000Z",
  last_pruning: {
    at: "2026-11-25T02:00:00.000Z",
    days_pruned: 1,
    last_day: "2025-10-20",
    events_archived: 300,
  },
};

Deno.test("metrics: today's locked deviation per area and the store's size facts", async () => {
  await withApp(FACTS, (text) => {
    // 41 frozen quarter-hours (00:00 … 10:00) × |2 MW − 0 MW the TSO has| × 0.25 h.
    assert.equal(
      sample(text, "fahrplan_locked_deviation_joules", { control_area: A }),
      20.5 * 3.6e9,
    );
    assert.equal(
      sample(text, "fahrplan_locked_deviation_joules", { control_area: B }),
      undefined,
    );
    assert.equal(sample(text, "fahrplan_store_delivery_day_states"), 400);
    assert.equal(sample(text, "fahrplan_store_events_kept"), 12_345);
    // 2025-10-21 00:00 Berlin is CEST (UTC+2).
    assert.equal(
      sample(text, "fahrplan_store_oldest_day_timestamp_seconds"),
      Date.parse("2025-10-20T22:00:00Z") / 1000,
    );
    assert.equal(
      sample(text, "fahrplan_store_last_pruning_timestamp_seconds"),
      Date.parse("2026-11-25T02:00:00Z") / 1000,
    );
  });
});

Deno.test("metrics: before retention's first count the store gauges are left out", async () => {
  await withApp(null, (text) => {
    assert.match(text, /^# TYPE fahrplan_store_delivery_day_states gauge$/m);
    assert.equal(sample(text, "fahrplan_store_delivery_day_states"), undefined);
    assert.equal(sample(text, "fahrplan_store_last_pruning_timestamp_seconds"), undefined);
    assert.equal(
      sample(text, "fahrplan_locked_deviation_joules", { control_area: A }),
      20.5 * 3.6e9,
    );
  });
});

Deno.test({
  name: "promtool check metrics: clean with the locked deviation and store gauges",
  ignore: skipWithout(PROMTOOL_PATH, "promtool check metrics"),
  async fn() {
    await withApp(FACTS, async (text) => {
      assert.match(text, /^fahrplan_store_delivery_day_states 400$/m);
      assert.match(
        text,
        /^fahrplan_locked_deviation_joules\{control_area="[^"]+"\} 73800000000$/m,
      );
      const r = await promtool(["check", "metrics"], text);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.equal((r.stdout + r.stderr).trim(), "");
    });
  },
});
