/**
 * Retention over three simulated years (docs/retention.md): a fake clock runs 1,096 compressed
 * delivery days with `RETENTION_DAYS=30`, an orchestrator tick after each. The number of KV
 * entries levels off; every pruned day's archive is complete (counts, sizes and SHA-256 match
 * its manifest); the events in the archive plus those in the store are exactly the events ever
 * written; the status shows the store's size facts. Prints a table per simulated quarter.
 * @module
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { addDays } from "../../lib/domain/delivery_day.ts";
import { dayExpired } from "../../lib/retention/plan.ts";
import { DAY_SCOPED_PREFIXES } from "../../lib/store/keys.ts";
import { call, startServer, storedEvents } from "../support/app.ts";
import { PROC } from "../support/keys.ts";
import { ids, openSse } from "../support/sse.ts";
import {
  archivedEventIds,
  checkedManifest,
  countEntries,
  fastTempDir,
  filesUnder,
  registerPortfolio,
  retentionEnv,
  simulateDay,
} from "../support/retention_sim.ts";

const FIRST = "2024-01-01";
const DAYS = 3 * 365 + 1; // 2024 is a leap year
const RETENTION = 30;

Deno.test("three years with RETENTION_DAYS=30: entries level off, archive complete, no event lost", async () => {
  await using tmp = await fastTempDir("retention-years-");
  const clock = new FakeClock(Date.parse("2023-12-28T08:00:00Z"));
  const s = await startServer(retentionEnv(tmp.path, RETENTION), {
    clock,
    kvPath: `${tmp.path}/bridge.kv`,
  });
  const archive = `${tmp.path}/archive`;
  try {
    await registerPortfolio(s);
    const rows: { i: number; quarter: string; entries: number; days: number; mb: number }[] = [];
    let lastDay = FIRST;
    let maxWorkMs = 0;
    for (let i = 0; i < DAYS; i++) {
      const day = addDays(FIRST, i);
      await simulateDay(s, clock, day);
      await s.bridge.orchestrator.tick("replica-a");
      assert.equal(s.bridge.orchestrator.lastPrune?.error, undefined, day);
      maxWorkMs = Math.max(maxWorkMs, s.bridge.orchestrator.lastPrune?.work_ms ?? 0);
      lastDay = day;
      if ((i + 1) % 91 === 0 || [10, 20, 30, 45].includes(i + 1) || i === DAYS - 1) {
        const facts = await status(s.url);
        rows.push({
          i,
          quarter: day,
          entries: await countEntries(s.kv),
          days: facts.days_kept as number,
          mb: await kvFileMb(s.kvPath),
        });
      }
    }
    console.log(`longest pruning share of a tick: ${maxWorkMs} ms (real time, noisy)`);
    console.log("day ending | KV entries | days kept | KV file + WAL MB");
    for (const r of rows) {
      console.log(`${r.quarter}     | ${r.entries} | ${r.days} | ${r.mb.toFixed(2)}`);
    }
    // Grows for the first RETENTION days, then levels off: from the first quarter's end on every
    // count stays within 10 % of the median.
    const later = rows.filter((r) => r.i >= 90);
    const steady = later.map((r) => r.entries).sort((a, b) => a - b);
    const median = steady[Math.floor(steady.length / 2)];
    for (const r of later) {
      assert.ok(Math.abs(r.entries - median) <= median * 0.1, `${r.quarter}: ${r.entries}`);
    }
    assert.ok(rows[0].entries < median * 0.6, `day 10: ${rows[0].entries} of ${median}`);
    assert.ok(rows.at(-1)!.days <= RETENTION + 4, `days kept ${rows.at(-1)!.days}`);
    // The SQLite file stops growing too (free pages are reused).
    assert.ok(rows.at(-1)!.mb < later[0].mb * 1.5 + 0.5, JSON.stringify(rows));

    // Every expired day: gone from KV (one scan of the store: no key under a day-scoped prefix
    // has an expired day second), its archive complete.
    const now = clock.now();
    const expired = new Set<Deno.KvKeyPart>();
    for (let i = 0; i < DAYS; i++) {
      const day = addDays(FIRST, i);
      if (dayExpired(day, now, RETENTION)) expired.add(day);
    }
    for await (const e of s.kv.list({ prefix: [] })) {
      if (DAY_SCOPED_PREFIXES.includes(e.key[0] as string) && expired.has(e.key[1])) {
        assert.fail(`${String(e.key[1])}: ${JSON.stringify(e.key)} still in the store`);
      }
    }
    const pruned = expired.size;
    const checkArchive = async (day: string) => {
      const m = await checkedManifest(archive, day);
      assert.deepEqual(m.counts, {
        days: 1,
        aggregates: 1,
        submissions: 0,
        schedule_versions: 2,
        schedule_history: 0,
        tso_status: 2,
        platform_pending: 0,
        // A status request per area: the simulated TSOs never answer (docs/fahrplan.md).
        status_request: 2,
        forecasts: 3,
        actuals: 0,
        balancing_group_sums: 0,
        imbalance_prices: 0,
        intraday_prices: 0,
        intraday_trades: 0,
        learned_forecasts: 0,
        metering_point_sums: 0,
        weather: 0,
        weather_latest: 0,
      }, day);
      assert.equal(m.files.filter((f) => f.path.startsWith("schedules/")).length, 2, day);
      assert.equal(m.files.find((f) => f.path === "forecasts-0001.csv")?.rows, 3, day);
    };
    // The folders a month at a time, read at once.
    const expiredDays = [...expired] as string[];
    for (let i = 0; i < expiredDays.length; i += 31) {
      await Promise.all(expiredDays.slice(i, i + 31).map(checkArchive));
    }
    assert.ok(pruned > DAYS - RETENTION - 3, `pruned ${pruned}`);
    console.log(`archive of ${FIRST}:`, await filesUnder(`${archive}/2024/01/01`));

    // Events: archive + store = every id from 1 to the head, once.
    const head = await s.bridge.ctx.events.head();
    const kept = (await storedEvents(s.kv)).map((e) => e.id as number);
    const archived = await archivedEventIds(archive);
    const all = [...archived, ...kept].sort((a, b) => a - b);
    assert.equal(all.length, head, "no event lost, none twice");
    all.forEach((id, i) => assert.equal(id, i + 1));
    assert.ok(archived.length > 0 && kept.length > 0);
    const months = await filesUnder(`${archive}/events`);
    assert.ok(months.includes("2024-01.jsonl") && months.length >= 34, months.join(","));

    // The history route still pages from the oldest kept event; the status shows the facts.
    const page = await call(`${s.url}/v1/console/events?after_id=0&limit=5`, {
      headers: { "x-api-key": PROC },
    });
    assert.equal(page.status, 200);
    assert.equal((page.body as { events: { id: number }[] }).events[0].id, kept[0]);
    // The live stream resumed at a pruned id goes on with the oldest kept event, without gaps.
    const tok = await call(`${s.url}/v1/console/stream-token`, {
      method: "POST",
      headers: { "x-api-key": PROC },
    });
    const sse = await openSse(
      `${s.url}/v1/console/events/stream?token=${(tok.body as { token: string }).token}`,
      { "last-event-id": "1" },
    );
    assert.equal(sse.status, 200);
    const got = ids(await sse.read((m) => ids(m).length >= 5, 10_000));
    await sse.close();
    assert.deepEqual(got.slice(0, 5), kept.slice(0, 5));
    const facts = await status(s.url);
    assert.equal(facts.retention_days, RETENTION);
    assert.equal(facts.events_kept, kept.length);
    assert.ok((facts.oldest_day as string) > addDays(lastDay, -RETENTION - 3));
    assert.equal((facts.last_pruning as { last_day: string }).last_day.length, 10);
  } finally {
    await s.close();
  }
});

/** Size of the KV file and its write-ahead log (SQLite WAL mode), MB. */
async function kvFileMb(path: string): Promise<number> {
  const size = (p: string) => Deno.stat(p).then((i) => i.size, () => 0);
  return (await size(path) + await size(`${path}-wal`)) / 1e6;
}

/** The `retention` part of the status (read after the facts cache's maximum age). */
async function status(url: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 100; i++) {
    const r = await call(`${url}/v1/console/status`, { headers: { "x-api-key": PROC } });
    assert.equal(r.status, 200);
    const ret = (r.body as { retention: Record<string, unknown> }).retention;
    if (ret.days_kept !== null) return ret;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error("the status never showed the size facts");
}
