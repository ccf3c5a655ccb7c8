/**
 * Schedule documents over the market platform (docs/fahrplan.md, "Over the market platform"): the
 * budget and the gate-closure stop hold for all documents of a submission together, so a slow
 * first document cannot push a later one past gate closure. The platform is a stub of `fetch`
 * that lets the injected clock run on by 3 s per request (real network time does not count on a
 * fake clock); the store is an in-memory KV.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { MarketPlatformError } from "../../lib/adapters/market_platform.ts";
import { buildSchedule } from "../../lib/fahrplan/document.ts";
import { sendDocuments } from "../../lib/pipeline/submit_documents.ts";
import { scheduleInput } from "../support/fahrplan.ts";
import { AREAS } from "../support/portfolio.ts";

Deno.test("platform documents: no document leaves after gate closure, however long the ones before took", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = new FakeClock(Date.UTC(2026, 10, 22, 10, 59, 52)); // gate closure in 8 s
  const posted: string[] = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = ((_url: string, init: RequestInit) => {
    posted.push(new Headers(init.headers).get("idempotency-key") ?? "");
    clock.advance(3_000);
    return Promise.resolve(Response.json({ submission_id: `s${posted.length}` }, { status: 201 }));
  }) as typeof fetch;
  try {
    const docs = Object.values(AREAS).map((area) => ({
      area,
      doc: buildSchedule({ ...scheduleInput("2026-11-23"), controlArea: area }),
      phase: "day_ahead" as const,
      frozen_before: "2026-11-22T23:00:00Z",
    }));
    const target = {
      url: "https://platform.invalid",
      apiKey: "platform-key-0123456789",
      timeoutSeconds: 30,
      stopAfterMs: 8_000,
      stopReason: "before gate closure 2026-11-22T11:00:00Z",
      clock,
    };
    const err = await sendDocuments(
      kv,
      { format: "ess", docs, unchanged: [], leaveBeforeMs: Date.UTC(2026, 10, 22, 22, 45) },
      target,
      "2026-11-23-v1",
      clock.now(),
    )
      .then(() => null, (e) => e);
    assert.ok(err instanceof MarketPlatformError, String(err));
    assert.match(
      err.message,
      /was not sent: the submission reached before gate closure 2026-11-22T11:00:00Z after 3 of 4 documents/,
    );
    assert.equal(err.retriable, false);
    assert.equal(posted.length, 3, "the fourth document would have left 1 s after gate closure");
  } finally {
    globalThis.fetch = realFetch;
    kv.close();
  }
});
