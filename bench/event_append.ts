/**
 * The `event_append` part (docs/benchmarks.md): `BENCH_LOOPS` (50) awaiting loops append
 * `BENCH_EVENTS` (20,000) events through `EventLog`, against one `kv.atomic()` per event.
 * @module
 */
import { systemClock } from "../lib/clock.ts";
import { EventLog, type NewEvent } from "../lib/store/events.ts";
import { num, report, type Row, row, tempDir } from "./common.ts";

const PART = "3a event append";
const EVENTS = num("BENCH_EVENTS", 20_000);
const LOOPS = num("BENCH_LOOPS", 50);
const TIME_LIMIT_MS = 60_000;

/** The `i`-th benchmark event (an API call as the app logs it). */
export const event = (i: number): NewEvent => ({
  kind: "api_call",
  message: `bench-caller called POST /v1/forecasts (200) #${i}`,
  caller: "bench-caller",
  credential_type: "api_key",
  path: "/v1/forecasts",
  status: 200,
});

/** Runs `LOOPS` loops calling `one(i)` until `EVENTS` calls were made; returns events/s. */
async function drive(one: (i: number) => Promise<unknown>): Promise<{ rate: number; n: number }> {
  let issued = 0;
  const t0 = performance.now();
  const deadline = t0 + TIME_LIMIT_MS;
  await Promise.all(Array.from({ length: LOOPS }, async () => {
    while (issued < EVENTS && performance.now() < deadline) await one(issued++);
  }));
  const s = (performance.now() - t0) / 1000;
  return { rate: issued / s, n: issued };
}

/** Runs the part; its rows. */
export async function main(): Promise<Row[]> {
  const dir = await tempDir("bench-append-");
  try {
    // Baseline: one atomic per event.
    const kvBase = await Deno.openKv(`${dir.path}/baseline.kv`);
    let id = 0;
    const base = await drive(async (i) => {
      const rec = { ...event(i), level: "info", id: ++id, ts: new Date().toISOString() };
      const r = await kvBase.atomic().set(["events", rec.id], rec).set(["events_head"], rec.id)
        .commit();
      if (!r.ok) throw new Error("baseline commit failed");
    });
    kvBase.close();

    // EventLog with group commit.
    const kv = await Deno.openKv(`${dir.path}/eventlog.kv`);
    const log = new EventLog(kv, systemClock);
    let commits = 0;
    log.subscribe(() => commits++);
    const got = await drive((i) => log.append(event(i)));
    await log.drain();
    const head = await log.head();
    kv.close();
    if (head !== got.n) throw new Error(`head ${head} != appended ${got.n}`);
    console.log(
      `baseline ${base.rate.toFixed(0)} events/s (${base.n}); EventLog ${
        got.rate.toFixed(0)
      } events/s (${got.n} in ${commits} commits, ${(got.n / commits).toFixed(1)} per commit)`,
    );
    const metric = `EventLog.append, ${LOOPS} concurrent awaiting loops, ${got.n} events`;
    return [row(PART, metric, got.rate, "events/s", {
      base: ["1 kv.atomic()/event", base.rate],
      goal: ["≥ 10,000 events/s", got.rate >= 10_000],
      note: `${commits} commits, ${(got.n / commits).toFixed(1)} events per commit; head = ${head}`,
    })];
  } finally {
    await dir.remove();
  }
}

if (import.meta.main) report(await main());
