/**
 * Events you can ask for (docs/architecture.md, "Event log and live stream"): the history filters
 * on the server by kind (repeatable), level (repeatable), delivery day and caller, with the same
 * paging; a bad filter is a 422 that names it.
 *
 * Real parts: the app on a temp-file KV over HTTP on 127.0.0.1.
 */
import assert from "node:assert/strict";
import type { EventRecord } from "../../lib/wire/events.ts";
import { call, startServer } from "../support/app.ts";
import { keysEnv, PROC } from "../support/keys.ts";

const auth = { "x-api-key": PROC };

Deno.test("history filters: kind, level, delivery_day, caller; paging goes on past non-matching records", async () => {
  const s = await startServer(keysEnv());
  try {
    const log = s.bridge.ctx.events;
    for (let i = 0; i < 30; i++) {
      await log.append({
        kind: i % 3 === 0 ? "orchestration_error" : "positions_aggregated",
        level: i % 3 === 0 ? "error" : "info",
        message: `event ${i}`,
        delivery_day: i % 2 === 0 ? "2026-11-24" : "2026-11-25",
        caller: i % 5 === 0 ? "ops" : "orchestrator",
      });
    }
    const page = async (qs: string) => {
      const r = await call(`${s.url}/v1/console/events?${qs}`, { headers: auth });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body as { events: EventRecord[]; next_after_id: number };
    };
    const errors = await page("level=error&level=warning&limit=1000");
    assert.equal(errors.events.length, 10);
    assert.ok(errors.events.every((e) => e.kind === "orchestration_error"));
    const day = await page("kind=positions_aggregated&delivery_day=2026-11-24");
    assert.ok(day.events.length > 0);
    assert.ok(day.events.every((e) => e.delivery_day === "2026-11-24" && e.level === "info"));
    const ops = await page("caller=ops");
    assert.deepEqual(
      ops.events.map((e) => e.message),
      [0, 5, 10, 15, 20, 25].map((i) => `event ${i}`),
    );
    // Paging with a filter: 4 errors a page, in id order, no record twice, none lost.
    const seen: string[] = [];
    let after = 0;
    for (let n = 0; n < 10; n++) {
      const p = await page(`kind=orchestration_error&limit=4&after_id=${after}`);
      seen.push(...p.events.map((e) => e.message));
      if (p.events.length === 0) break;
      after = p.next_after_id;
    }
    assert.deepEqual(seen, [0, 3, 6, 9, 12, 15, 18, 21, 24, 27].map((i) => `event ${i}`));
    // The newest page of a filter that matches nothing: the next page starts after the newest.
    const none = await page("kind=csv_published");
    assert.deepEqual([none.events.length, none.next_after_id >= 30], [0, true]);
    // A filter that matches nothing after the last page: empty, and next_after_id moved on.
    const empty = await page(`kind=csv_published&after_id=0`);
    assert.deepEqual(empty.events, []);
    assert.ok(empty.next_after_id >= 30);
  } finally {
    await s.close();
  }
});

Deno.test("history filters: an unknown kind or level, a bad day → 422 naming the parameter", async () => {
  const s = await startServer(keysEnv());
  try {
    for (
      const [qs, loc] of [
        ["kind=nonsense", ["query", "kind", 0]],
        ["level=debug", ["query", "level", 0]],
        ["delivery_day=tomorrow", ["query", "delivery_day"]],
      ] as const
    ) {
      const r = await call(`${s.url}/v1/console/events?${qs}`, { headers: auth });
      assert.equal(r.status, 422, qs);
      const [item] = (r.body as { detail: { loc: unknown[] }[] }).detail;
      assert.deepEqual(item.loc, loc, qs);
    }
  } finally {
    await s.close();
  }
});
