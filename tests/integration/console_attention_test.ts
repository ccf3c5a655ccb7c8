/**
 * `attention` in `GET /v1/console/status` (docs/console_attention.md): a TSO rejection and an
 * anomaly imported from the inbox appear with the TSO's reason; "all confirmed" only once every
 * area confirmed the current version, and new input after it is amber; tomorrow without state is
 * "not sent yet" until the TSO deadline, then "missed"; today and tomorrow have overview rows.
 *
 * Real parts: the app on a temp-file KV over HTTP on 127.0.0.1 with a fake clock, the outbox and
 * inbox on disk, answer files in the structure of the real ESS samples.
 */
import assert from "node:assert/strict";
import { call } from "../support/app.ts";
import { attentionOf } from "../support/attention.ts";
import {
  BEFORE_GC,
  DAY,
  portfolio,
  postForecast,
  proc,
  rig,
  step,
} from "../support/day_ahead_rig.ts";
import { FILES_CHANNEL_ENV } from "../support/fahrplan.ts";
import { AREAS } from "../support/portfolio.ts";
import { ackFile, anoFile, cnfFile, TSO } from "../support/tso_answers.ts";
import type { AttentionItem } from "../../lib/wire/attention.ts";

const codes = (items: AttentionItem[]) => items.map((i) => `${i.code}:${i.delivery_day}`);
const importAnswers = async (url: string) => {
  const r = await call(`${url}/v1/schedule-responses/import`, { method: "POST", headers: proc });
  assert.equal(r.status, 200, JSON.stringify(r.body));
};

Deno.test("attention: a rejected and an anomalous schedule appear with the TSO's reason", async () => {
  const r = await rig(BEFORE_GC, FILES_CHANNEL_ENV);
  const inbox = `${r.dir}/inbox`;
  try {
    await call(`${r.s.url}/v1/console/config`, {
      method: "PUT",
      headers: proc,
      body: JSON.stringify({ schedule_inbox_dir: inbox }),
    });
    await portfolio(r.s);
    assert.equal((await step(r.s, DAY, "aggregate")).status, 200);
    assert.equal((await step(r.s, DAY, "submit")).status, 200);
    const sent = await attentionOf(r.s.url);
    assert.deepEqual(codes(sent), [`orchestrator_stopped:null`, `awaiting_answer:${DAY}`]);
    assert.match(sent[1].message, /^Tomorrow \(Mon 23 Nov\): confirmed: 0 of 4 areas/);

    await Deno.mkdir(inbox, { recursive: true });
    await Deno.writeTextFile(`${inbox}/a.xml`, cnfFile(DAY, TSO.amprion, 1));
    await Deno.writeTextFile(
      `${inbox}/b.xml`,
      ackFile(DAY, TSO.tennet, 1, "A02", "wrong balancing group"),
    );
    await Deno.writeTextFile(`${inbox}/c.xml`, cnfFile(DAY, TSO.hertz, 1));
    await Deno.writeTextFile(
      `${inbox}/d.xml`,
      anoFile(DAY, TSO.transnet, "counterparty time series differs"),
    );
    await importAnswers(r.s.url);
    r.clock.advance(1000); // the list is computed at most once a second
    const items = await attentionOf(r.s.url);
    // Errors first (per area in the order of the control areas), then the stopped orchestrator.
    assert.deepEqual(codes(items).sort(), [
      `orchestrator_stopped:null`,
      `tso_anomaly:${DAY}`,
      `tso_rejected:${DAY}`,
    ]);
    assert.equal(items[2].code, "orchestrator_stopped");
    const rejected = items.find((i) => i.code === "tso_rejected");
    const anomaly = items.find((i) => i.code === "tso_anomaly")!;
    assert.deepEqual(rejected, {
      code: "tso_rejected",
      level: "error",
      delivery_day: DAY,
      control_area: AREAS.tennet,
      message: `Tomorrow (Mon 23 Nov): the TSO rejected the schedule for ${AREAS.tennet} ` +
        "(schedule v1): wrong balancing group.",
    });
    assert.equal(anomaly.level, "error");
    assert.equal(anomaly.control_area, AREAS.transnet);
    assert.match(
      anomaly.message,
      /anomaly in the schedule .*: counterparty time series differs\.$/,
    );
  } finally {
    await r.close();
  }
});

Deno.test("attention: all confirmed only for the current version; new input turns it amber", async () => {
  const r = await rig(BEFORE_GC, FILES_CHANNEL_ENV);
  const inbox = `${r.dir}/inbox`;
  try {
    await call(`${r.s.url}/v1/console/config`, {
      method: "PUT",
      headers: proc,
      body: JSON.stringify({ schedule_inbox_dir: inbox }),
    });
    await call(`${r.s.url}/v1/console/start`, { method: "POST", headers: proc });
    await portfolio(r.s);
    assert.equal((await step(r.s, DAY, "aggregate")).status, 200);
    assert.equal((await step(r.s, DAY, "submit")).status, 200);
    await Deno.mkdir(inbox, { recursive: true });
    for (const tso of Object.values(TSO)) {
      await Deno.writeTextFile(`${inbox}/${tso}.xml`, cnfFile(DAY, tso, 1));
    }
    await importAnswers(r.s.url);
    r.clock.advance(1000);
    const ok = await attentionOf(r.s.url);
    assert.deepEqual(codes(ok), [`all_confirmed:${DAY}`]);
    assert.equal(ok[0].level, "ok");
    assert.equal(
      ok[0].message,
      "All schedules for tomorrow (Mon 23 Nov) are confirmed: schedule v1 in 4 of 4 areas " +
        "(aggregate v2).",
    );
    // A newer forecast after the confirmation: the TSOs have aggregate v2, the input is v3.
    await postForecast(r.s, 1, DAY, Array(96).fill(150));
    r.clock.advance(1000);
    const outdated = await attentionOf(r.s.url);
    assert.deepEqual(codes(outdated), [`schedule_outdated:${DAY}`]);
    assert.equal(outdated[0].level, "warn");
    assert.match(outdated[0].message, /\. The TSOs have aggregate v2, the current one is v3/);
  } finally {
    await r.close();
  }
});

Deno.test("attention: tomorrow without state — not sent yet, then missed; today and tomorrow have rows", async () => {
  const r = await rig(BEFORE_GC, FILES_CHANNEL_ENV);
  try {
    await call(`${r.s.url}/v1/console/start`, { method: "POST", headers: proc });
    const before = await attentionOf(r.s.url);
    assert.deepEqual(before, [{
      code: "not_sent_yet",
      level: "info",
      delivery_day: DAY,
      message: "Tomorrow (Mon 23 Nov): nothing sent — TSO deadline 14:30 Berlin in 5 h 30 min.",
    }]);
    const ov = await call(`${r.s.url}/v1/console/delivery-days`, { headers: proc });
    const body = ov.body as {
      today: string;
      delivery_days: unknown[];
      without_state: { delivery_day: string; steps: { submitted: unknown } }[];
    };
    assert.equal(body.today, "2026-11-22");
    assert.deepEqual(body.delivery_days, []);
    assert.deepEqual(body.without_state.map((d) => [d.delivery_day, d.steps.submitted]), [
      ["2026-11-22", null],
      [DAY, null],
    ]);
    r.clock.advance(3 * 3600_000); // 12:00 Berlin: gate closure of DAY, the TSO deadline ahead
    assert.deepEqual(codes(await attentionOf(r.s.url)), [`not_sent_yet:${DAY}`]);
    r.clock.advance(2.5 * 3600_000); // 14:30 Berlin: the TSO deadline of DAY (docs/intraday.md)
    const after = await attentionOf(r.s.url);
    assert.deepEqual(codes(after), [`deadline_missed:${DAY}`]);
    assert.equal(after[0].level, "error");
    assert.equal(
      after[0].message,
      "Tomorrow (Mon 23 Nov): missed: TSO deadline passed, nothing sent.",
    );
  } finally {
    await r.close();
  }
});
