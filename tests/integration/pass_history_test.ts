/**
 * The pass history (docs/console.md, "Pass history"): every pass, scheduled or manual, is kept
 * with time, caller, duration, outcome and per day what ran, failed or was not tried and why;
 * `GET /v1/console/passes` pages it newest first; a manual pass imports the TSO inbox first; the
 * history is bounded to 1,000 passes and 7 days.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { MAX_PASSES, PassHistory } from "../../lib/orchestrator/pass_history.ts";
import type { PassPage } from "../../lib/wire/pass_history.ts";
import { call, storedEvents } from "../support/app.ts";
import { BEFORE_GC, DAY, orchestrate, portfolio, rig } from "../support/day_ahead_rig.ts";
import { PROC } from "../support/keys.ts";
import { withKv } from "../support/temp.ts";

const proc = { "x-api-key": PROC };

Deno.test("pass history: a failing manual pass and a scheduled one, paged newest first; the manual pass imported the inbox", async () => {
  const r = await rig(BEFORE_GC, { OUTBOX_DIR: "/sys/bridge-history-test" });
  const inbox = `${r.dir}/inbox`;
  try {
    await r.s.bridge.ctx.config.update({ schedule_inbox_dir: inbox });
    await Deno.writeTextFile(`${inbox}/garbage.xml`, "<not-an-answer/>");
    await portfolio(r.s);
    const manual = await orchestrate(r.s);
    assert.equal(manual.status, 200, JSON.stringify(manual.body));
    // The manual pass imported the inbox before it ran the steps.
    assert.deepEqual([...Deno.readDirSync(`${inbox}/rejected`)].map((e) => e.name).sort(), [
      "garbage.xml",
      "garbage.xml.reason.txt",
    ]);
    assert.ok((await storedEvents(r.s.kv)).some((e) => e.kind === "schedule_answer_rejected"));

    // A scheduled pass a minute later (nothing new to do but the failed publish again).
    r.clock.advance(60_000);
    assert.equal(
      (await call(`${r.s.url}/v1/console/start`, { method: "POST", headers: proc })).status,
      200,
    );
    const tick = await r.s.bridge.orchestrator.tick("replica-a");
    assert.equal(tick.ran, true);

    const all = await call(`${r.s.url}/v1/console/passes`, { headers: proc });
    assert.equal(all.status, 200);
    const page = all.body as PassPage;
    assert.equal(page.passes.length, 2);
    assert.equal(page.next_before, null);
    const [scheduled, first] = page.passes;
    assert.deepEqual(
      [first.trigger, first.by, first.outcome, first.started_at],
      ["manual", "ops", "partial", BEFORE_GC.replace("Z", ".000Z")],
    );
    assert.equal(typeof first.duration_s, "number");
    const day = first.days.find((d) => d.delivery_day === DAY)!;
    assert.deepEqual(day.ran, ["forecast", "aggregate"]);
    assert.equal(day.failed?.step, "publish");
    assert.match(day.failed!.error, /the service may not write to \/sys\/bridge-history-test/);
    assert.deepEqual(day.skipped, [{
      step: "submit",
      reason: "not tried: the day's pass stops at its first failure (publish failed)",
    }]);
    assert.deepEqual([scheduled.trigger, scheduled.by, scheduled.outcome], [
      "scheduled",
      "orchestrator",
      "failed",
    ]);
    assert.ok(scheduled.id > first.id);

    // Paged: one per page, then the older one, then none.
    const p1 = (await call(`${r.s.url}/v1/console/passes?limit=1`, { headers: proc }))
      .body as PassPage;
    assert.deepEqual([p1.passes.map((p) => p.id), p1.next_before], [[scheduled.id], scheduled.id]);
    const p2 = (await call(`${r.s.url}/v1/console/passes?limit=1&before=${p1.next_before}`, {
      headers: proc,
    })).body as PassPage;
    assert.deepEqual([p2.passes.map((p) => p.id), p2.next_before], [[first.id], null]);
    const bad = await call(`${r.s.url}/v1/console/passes?limit=0`, { headers: proc });
    assert.equal(bad.status, 422);
    const ext = await call(`${r.s.url}/v1/console/passes`, { headers: { "x-api-key": "nope" } });
    assert.equal(ext.status, 401);
  } finally {
    await r.close();
  }
});

Deno.test("pass history: at most 1,000 passes and 7 days", async () => {
  await withKv(async (kv) => {
    const clock = new FakeClock(Date.parse("2026-11-01T00:00:00Z"));
    const history = new PassHistory(kv, clock);
    const pass = () => {
      const at = new Date(clock.now()).toISOString();
      return {
        started_at: at,
        finished_at: at,
        by: "orchestrator",
        outcome: "nothing_to_do" as const,
        steps_run: 0,
        steps_failed: 0,
      };
    };
    for (let i = 0; i < MAX_PASSES + 5; i++) await history.record(pass());
    const ids = async () => {
      const out: number[] = [];
      for await (const e of kv.list<{ id: number }>({ prefix: ["pass_history"] })) {
        out.push(e.value.id);
      }
      return out;
    };
    let kept = await ids();
    assert.equal(kept.length, MAX_PASSES);
    assert.deepEqual([kept[0], kept.at(-1)], [6, MAX_PASSES + 5]);
    // Eight days later: the old ones go (a few per pass), the new ones stay.
    clock.advance(8 * 86_400_000);
    for (let i = 0; i < 60; i++) await history.record(pass());
    kept = await ids();
    assert.equal(kept.length, 60);
    const page = await history.page({ limit: 200 });
    assert.equal(page.passes.length, 60);
    assert.equal(page.next_before, null);
  });
});
