/**
 * Schedule documents over the `platform` channel (docs/fahrplan.md): with `schedule_format` ess or cim, one XML document per control area is POSTed to
 * the market platform with `content-type: application/xml` and its own idempotency key; the
 * receipt's id is polled at `GET /schedules/{id}` on every orchestrator tick until the TSO's state
 * is final, and each change is the day's status and one event — as with answer files.
 *
 * Real parts: the market-platform simulator over TLS (playing the TSO), the app on a temp-file KV
 * over HTTP on 127.0.0.1, the orchestrator's tick, the injected clock.
 */
import assert from "node:assert/strict";
import { XMLParser } from "fast-xml-parser";
import { storedEvents } from "../support/app.ts";
import {
  BEFORE_GC,
  DAY,
  dayView,
  portfolio,
  postForecast,
  rig,
  step,
} from "../support/day_ahead_rig.ts";
import { PARTIES } from "../support/fahrplan.ts";
import { AREAS } from "../support/portfolio.ts";

const PLATFORM_CIM = {
  SENDER_EIC: PARTIES.sender,
  BALANCING_GROUP: PARTIES.balancingGroup,
  COUNTERPARTY_EIC: PARTIES.counterparty,
  SCHEDULE_FORMAT: "cim",
};
const xml = new XMLParser({ removeNSPrefix: true, ignoreAttributes: false });

type Row = {
  control_area: string;
  tso_status: string;
  version: number;
  reason_text: string | null;
  platform_id?: string;
};
const rows = async (r: Awaited<ReturnType<typeof rig>>) =>
  new Map(
    ((await dayView(r.s, DAY)) as unknown as { schedules: Row[] }).schedules.map((s) => [
      s.control_area,
      s,
    ]),
  );
const kinds = async (r: Awaited<ReturnType<typeof rig>>, prefix: RegExp) =>
  (await storedEvents(r.s.kv)).map((e) => e.kind as string).filter((k) => prefix.test(k));

Deno.test("platform channel with CIM: one XML document per control area, polled each tick until the TSO's answer is final", async () => {
  const r = await rig(BEFORE_GC, PLATFORM_CIM);
  try {
    await portfolio(r.s);
    assert.equal((await step(r.s, DAY, "aggregate")).status, 200);
    const sub = await step(r.s, DAY, "submit");
    assert.equal(sub.status, 200, JSON.stringify(sub.body));
    const body = sub.body as {
      format: string;
      sent: boolean;
      documents: { control_area: string; idempotency_key: string; submission_id: string }[];
    };
    assert.equal(body.format, "cim");
    const aggV = (sub.body as { version: number }).version;
    assert.equal(body.sent, true);
    const docs = r.sim.documents();
    assert.equal(docs.length, 4, "one document per active control area");
    assert.equal(r.sim.submissions().length, 0, "no JSON payload");
    for (const d of docs) {
      assert.equal(d.format, "cim");
      assert.equal(d.idempotency_key, `${DAY}-v${aggV}-${d.control_area}`);
      const doc = xml.parse(d.xml).Schedule_MarketDocument;
      assert.equal(String(doc.revisionNumber), "1");
      assert.equal(doc["process.processType"], "A17");
    }
    let status = await rows(r);
    assert.deepEqual([...status.values()].map((s) => s.tso_status), [
      "sent",
      "sent",
      "sent",
      "sent",
    ]);
    assert.ok(
      [...status.values()].every((s) => docs.some((d) => d.submission_id === s.platform_id)),
    );

    // The same version again: nothing is sent twice.
    const again = await step(r.s, DAY, "submit");
    assert.equal((again.body as { sent: boolean }).sent, false);
    assert.equal(r.sim.documents().length, 4);

    // TenneT's TSO reports an anomaly; the others acknowledge on the first poll.
    const tennet = docs.find((d) => d.control_area === AREAS.tennet)!;
    r.sim.setState(tennet.submission_id, "anomaly", "A28", "counterparty time series differs");
    await r.s.bridge.orchestrator.tick("replica-a");
    status = await rows(r);
    assert.equal(status.get(AREAS.tennet)?.tso_status, "anomaly");
    assert.equal(status.get(AREAS.tennet)?.reason_text, "counterparty time series differs");
    assert.equal(status.get(AREAS.amprion)?.tso_status, "acknowledged");
    assert.equal(r.sim.statusRequests(), 4);

    // Next tick: the CNFs; the anomaly is final and not asked about again.
    await r.s.bridge.orchestrator.tick("replica-a");
    status = await rows(r);
    assert.deepEqual(
      [...status.entries()].filter(([, s]) => s.tso_status === "confirmed").map(([a]) => a).sort(),
      [AREAS.transnet, AREAS.hertz, AREAS.amprion].sort(),
    );
    assert.equal(r.sim.statusRequests(), 7);

    // Everything final: no more requests, no repeated events.
    const before = await kinds(r, /^(schedule_|anomaly_)/);
    await r.s.bridge.orchestrator.tick("replica-a");
    assert.equal(r.sim.statusRequests(), 7);
    assert.deepEqual(await kinds(r, /^(schedule_|anomaly_)/), before);
    assert.equal(before.filter((k) => k === "schedule_acknowledged").length, 3);
    assert.equal(before.filter((k) => k === "schedule_confirmed").length, 3);
    assert.equal(before.filter((k) => k === "anomaly_reported").length, 1);

    // A newer aggregate: version 2 of every document with new keys, polled again.
    await postForecast(r.s, 2, DAY, Array(96).fill(250));
    assert.equal((await step(r.s, DAY, "aggregate")).status, 200);
    assert.equal((await step(r.s, DAY, "submit")).status, 200);
    const v2 = r.sim.documents().slice(4);
    assert.equal(v2.length, 4);
    assert.ok(
      v2.every((d) =>
        d.message_version === 2 && d.idempotency_key.startsWith(`${DAY}-v${aggV + 1}-`)
      ),
    );
    assert.ok(
      v2.every((d) =>
        d.message_identification ===
          docs.find((x) => x.control_area === d.control_area)!.message_identification
      ),
    );
    await r.s.bridge.orchestrator.tick("replica-a");
    await r.s.bridge.orchestrator.tick("replica-a");
    status = await rows(r);
    assert.ok(
      [...status.values()].every((s) => s.version === 2 && s.tso_status === "confirmed"),
      JSON.stringify([...status.values()]),
    );
  } finally {
    await r.close();
  }
});

Deno.test("platform channel with ESS: missing counterparty refused in words, a refused POST sends again in full, a rejection and an unreachable platform are told", async () => {
  const r = await rig(BEFORE_GC, { ...PLATFORM_CIM, SCHEDULE_FORMAT: "ess", COUNTERPARTY_EIC: "" });
  try {
    await portfolio(r.s);
    assert.equal((await step(r.s, DAY, "aggregate")).status, 200);
    const refused = await step(r.s, DAY, "submit");
    assert.equal(refused.status, 409);
    assert.match(
      JSON.stringify(refused.body),
      /counterparty_eic is not configured; nothing was submitted/,
    );
    assert.equal(r.sim.requests(), 0);
  } finally {
    await r.close();
  }

  const p = await rig(BEFORE_GC, { ...PLATFORM_CIM, SCHEDULE_FORMAT: "ess" });
  try {
    await portfolio(p.s);
    assert.equal((await step(p.s, DAY, "aggregate")).status, 200);
    p.sim.failNext(422, "schedule rejected by the platform: unknown balancing group");
    const failed = await step(p.s, DAY, "submit");
    assert.equal(failed.status, 502, JSON.stringify(failed.body));
    assert.match(JSON.stringify(failed.body), /unknown balancing group/);
    assert.equal((await dayView(p.s, DAY)).steps.submitted, null);

    const ok = await step(p.s, DAY, "submit");
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const docs = p.sim.documents();
    assert.equal(docs.length, 4);
    assert.ok(docs.every((d) => d.format === "ess" && d.xml.includes("<ScheduleMessage")));
    const view = await dayView(p.s, DAY);
    assert.equal(view.steps.submitted?.detail.channel, "platform");
    assert.equal(view.steps.submitted?.detail.format, "ess");

    const amprion = docs.find((d) => d.control_area === AREAS.amprion)!;
    p.sim.setState(amprion.submission_id, "rejected", "A02", "sender not registered for this area");
    await p.s.bridge.orchestrator.tick("replica-a");
    const status = await rows(p);
    assert.equal(status.get(AREAS.amprion)?.tso_status, "rejected");
    const events = await storedEvents(p.s.kv);
    const rejected = events.find((e) => e.kind === "schedule_rejected");
    assert.equal(rejected?.level, "error"); // the schedule does not stand: the operator must act
    assert.match(
      String(rejected?.message),
      /rejected the schedule of 2026-11-23 .*sender not registered/,
    );

    // The platform goes away: the statuses stay, one error event per tick says why.
    await p.sim.close();
    await p.s.bridge.orchestrator.tick("replica-a");
    const after = await rows(p);
    assert.equal(after.get(AREAS.tennet)?.tso_status, "acknowledged");
    assert.equal(after.get(AREAS.amprion)?.tso_status, "rejected");
    const errors = (await storedEvents(p.s.kv)).filter((e) =>
      e.kind === "orchestration_error" && e.caller === "orchestrator"
    );
    assert.equal(errors.length, 1, JSON.stringify(errors));
    assert.match(
      String(errors[0].message),
      /could not be asked about 3 of 3 schedule documents: market platform not reachable/,
    );
  } finally {
    await p.close();
  }
});

Deno.test("platform channel: a document still not final a day after its delivery day is no longer asked about, in words", async () => {
  const r = await rig(BEFORE_GC, PLATFORM_CIM);
  try {
    await portfolio(r.s);
    assert.equal((await step(r.s, DAY, "aggregate")).status, 200);
    assert.equal((await step(r.s, DAY, "submit")).status, 200);
    await r.s.bridge.orchestrator.tick("replica-a"); // acknowledged
    const asked = r.sim.statusRequests();
    r.clock.advance(3 * 86_400_000); // DAY ended two days ago
    await r.s.bridge.orchestrator.tick("replica-a");
    assert.equal(r.sim.statusRequests(), asked, "not asked any more");
    const status = await rows(r);
    assert.ok([...status.values()].every((s) => s.tso_status === "acknowledged"));
    const warnings = (await storedEvents(r.s.kv)).filter((e) =>
      /Stopped asking the market platform/.test(String(e.message))
    );
    assert.equal(warnings.length, 4);
    assert.equal(warnings[0].level, "warning");
    assert.match(
      String(warnings[0].message),
      /its delivery day ended, and the document left, more than a day ago; its status stays as it is/,
    );
    await r.s.bridge.orchestrator.tick("replica-a");
    assert.equal(r.sim.statusRequests(), asked);
  } finally {
    await r.close();
  }
});
