/**
 * The TSO's answers to post-delivery corrections (docs/post-delivery.md), on a fake clock:
 *
 * - over the market platform in CIM, delivery Thursday 2 April 2026 (before Easter) in TenneT and
 *   Amprion: the platform simulator validates the correction against ENTSO-E's XSD and keeps the
 *   TSO's rules; the orchestrator's poll brings its ACK and CNF; TenneT's window is capped on
 *   Easter Sunday at 16:00 while Amprion's runs to Tuesday;
 * - on the files channel, a correction the TSO does not answer gets a status request half an
 *   hour later, three days after delivery.
 *
 * Real parts: the app on a temp-file KV over HTTP, the market-platform simulator over TLS, the
 * TSO simulator on the outbox, the orchestrator's tick.
 */
import assert from "node:assert/strict";
import { deliveryDay } from "../../lib/domain/delivery_day.ts";
import { versionHistory } from "../../lib/fahrplan/history.ts";
import type { PostDelivery } from "../../lib/wire/post_delivery.ts";
import { call } from "../support/app.ts";
import {
  ext,
  platformDocumentsRig,
  postForecast,
  proc,
  putLocation,
} from "../support/day_ahead_rig.ts";
import { assertCimValid } from "../support/fahrplan.ts";
import { startWalk } from "../support/intraday_walk.ts";
import { AREAS, maloId } from "../support/portfolio.ts";

const json = { ...proc, "content-type": "application/json" };
const berlin = (date: string, hhmm: string) =>
  Temporal.PlainDate.from(date).toZonedDateTime({
    timeZone: "Europe/Berlin",
    plainTime: Temporal.PlainTime.from(hhmm),
  }).epochMilliseconds;

Deno.test("post-delivery over the platform (cim): answered by poll; TenneT capped on Easter Sunday, Amprion open until Tuesday", async () => {
  const DAY = "2026-04-02"; // Thursday before Easter
  const r = await platformDocumentsRig(
    new Date(berlin("2026-03-31", "09:00")).toISOString(),
    "cim",
  );
  const tick = () => r.s.bridge.orchestrator.tick("replica-a");
  const at = (date: string, hhmm: string) => r.clock.set(berlin(date, hhmm));
  const correct = (area: string, body: unknown) =>
    call(`${r.s.url}/v1/delivery-days/${DAY}/schedules/${area}/post-delivery`, {
      method: "POST",
      headers: json,
      body: JSON.stringify(body),
    });
  const view = async () => {
    const g = await call(`${r.s.url}/v1/delivery-days/${DAY}/post-delivery`, { headers: proc });
    assert.equal(g.status, 200, JSON.stringify(g.body));
    return new Map((g.body as PostDelivery).areas.map((a) => [a.control_area, a]));
  };
  const n = deliveryDay(DAY).quarterHours.length;
  try {
    await putLocation(r.s, 1, { control_area: AREAS.amprion, direction: "consumption" });
    await putLocation(r.s, 2, { control_area: AREAS.tennet, direction: "generation" });
    await postForecast(r.s, 1, DAY, Array(n).fill(1_000));
    await postForecast(r.s, 2, DAY, Array(n).fill(500));
    for (let i = 0; i < 3; i++) {
      await tick(); // sends version 1, then polls: acknowledged, confirmed
      r.clock.advance(60_000);
    }
    const tennet = () => versionHistory(r.s.kv, DAY, AREAS.tennet);
    assert.deepEqual((await tennet()).map((v) => [v.version, v.tso_status]), [[1, "confirmed"]]);

    // Sat 4 April: the TenneT park fed in 400 kWh per quarter-hour (1.6 MW, not 0.5).
    at("2026-04-04", "10:00");
    const rows = deliveryDay(DAY).quarterHours.map((q) => `${maloId(2)},${q.toString()},400`);
    const a = await call(`${r.s.url}/v1/actuals`, {
      method: "POST",
      headers: { ...ext, "content-type": "text/csv" },
      body: ["market_location_id,start,kwh", ...rows].join("\n"),
    });
    assert.equal(a.status, 200, JSON.stringify(a.body));
    let v = await view();
    assert.equal(v.get(AREAS.tennet)!.deadline, "2026-04-05T14:00:00Z");
    assert.equal(v.get(AREAS.tennet)!.deadline_local, "Sun 5 Apr 2026 16:00");
    assert.match(v.get(AREAS.tennet)!.rule, /third calendar day after delivery caps it/);
    assert.equal(v.get(AREAS.amprion)!.deadline_local, "Tue 7 Apr 2026 16:00");
    const proposal = v.get(AREAS.tennet)!.proposal!;
    assert.ok(proposal.schedule_mw.every((x) => x === -1.6));
    assert.ok(Math.abs(proposal.moved_long_mwh - n * 1.1 * 0.25) < 1e-9);

    // Easter Sunday 15:59: the correction goes to the platform; the poll brings ACK and CNF.
    at("2026-04-05", "15:59");
    let c = await correct(AREAS.tennet, { from: "actuals" });
    assert.equal(c.status, 200, JSON.stringify(c.body));
    const sent = c.body as { version: number; channel: string; location: string | null };
    assert.deepEqual([sent.version, sent.channel], [2, "platform"]);
    const doc = r.sim.documents().find((d) =>
      d.idempotency_key === `${DAY}-post-delivery-v2-${AREAS.tennet}`
    )!;
    assert.equal(doc.submission_id, sent.location);
    await assertCimValid(doc.xml, "the correction over the platform");
    for (let i = 0; i < 2; i++) {
      r.clock.advance(20_000);
      await tick();
    }
    assert.deepEqual((await tennet()).map((x) => [x.version, x.phase, x.tso_status]), [
      [1, "day_ahead", "confirmed"],
      [2, "post_delivery", "confirmed"],
    ]);

    // 16:01: TenneT's window is closed; Amprion's is open until Tuesday.
    at("2026-04-05", "16:01");
    c = await correct(AREAS.tennet, { unit: "MW", quantities: Array(n).fill(-1.5) });
    assert.equal(c.status, 409);
    assert.match(
      (c.body as { detail: string }).detail,
      /closed at Sun 5 Apr 2026 16:00 Berlin \(2026-04-05T14:00:00Z\).*TenneT's rule/,
    );
    c = await correct(AREAS.amprion, { unit: "MW", quantities: Array(n).fill(1.25) });
    assert.equal(c.status, 200, JSON.stringify(c.body));
    v = await view();
    assert.deepEqual([v.get(AREAS.tennet)!.state, v.get(AREAS.amprion)!.state], [
      "closed",
      "open",
    ]);
  } finally {
    await r.close();
  }
});

Deno.test("post-delivery on the files channel: an unanswered correction gets a status request after 30 minutes", async () => {
  const DAY = "2026-11-27"; // Friday; the correction on Monday, three days later
  const w = await startWalk(DAY);
  try {
    await w.forecast(1_000);
    await w.pass();
    w.at(3, "15:00");
    const n = deliveryDay(DAY).quarterHours.length;
    const c = await call(
      `${w.r.s.url}/v1/delivery-days/${DAY}/schedules/${AREAS.amprion}/post-delivery`,
      {
        method: "POST",
        headers: json,
        body: JSON.stringify({ unit: "MW", quantities: Array(n).fill(1.5) }),
      },
    );
    assert.equal(c.status, 200, JSON.stringify(c.body));
    const srq = () => [...Deno.readDirSync(w.r.outbox)].filter((f) => /_SRQ_/.test(f.name));
    w.at(3, "15:29");
    await w.r.s.bridge.orchestrator.tick("replica-a");
    assert.equal(srq().length, 0, "not overdue yet");
    w.at(3, "15:31");
    await w.r.s.bridge.orchestrator.tick("replica-a");
    assert.equal(srq().length, 1, "the status request for the correction");
    // The TSO answers the request with its answer to version 2.
    await w.answers();
    assert.deepEqual((await w.history()).map((x) => [x.version, x.tso_status]).at(-1), [
      2,
      "confirmed",
    ]);
  } finally {
    await w.close();
  }
});
