/**
 * The TSO's answers (docs/fahrplan.md): ACK, CNF and ANO files
 * in the inbox are imported, matched to the documents handed over, applied per day and control
 * area, moved to processed/; garbage goes to rejected/ with an event; nothing is imported twice;
 * an answer about an older version leaves the newer status alone.
 *
 * Real parts: the app on a temp-file KV over HTTP on 127.0.0.1, the inbox and outbox on disk,
 * answer files written in the structure of the real ESS samples with our identifiers.
 */
import assert from "node:assert/strict";
import { call, storedEvents } from "../support/app.ts";
import {
  BEFORE_GC,
  DAY,
  portfolio,
  postForecast,
  proc,
  rig,
  step,
} from "../support/day_ahead_rig.ts";
import { PARTIES } from "../support/fahrplan.ts";
import {
  ackFile,
  anoFile,
  cnfFile,
  fileNames,
  schedulesOf as schedulesOfDay,
  TSO,
} from "../support/tso_answers.ts";
import { AREAS } from "../support/portfolio.ts";

const ack = (tso: string, version: number, code: "A01" | "A02", text: string) =>
  ackFile(DAY, tso, version, code, text);
const cnf = (tso: string, version: number) => cnfFile(DAY, tso, version);
const ano = (tso: string) => anoFile(DAY, tso, "counterparty time series differs");

const schedulesOf = (url: string) => schedulesOfDay(url, DAY);
const names = fileNames;

Deno.test("TSO answers: ACK, rejection, CNF and ANO applied per area; garbage rejected; nothing twice; older versions ignored", async () => {
  const r = await rig(BEFORE_GC, {
    SENDER_EIC: PARTIES.sender,
    BALANCING_GROUP: PARTIES.balancingGroup,
    COUNTERPARTY_EIC: PARTIES.counterparty,
    SCHEDULE_CHANNEL: "files",
    SCHEDULE_FORMAT: "ess",
  });
  const inbox = `${r.dir}/inbox`;
  await call(`${r.s.url}/v1/console/config`, {
    method: "PUT",
    headers: proc,
    body: JSON.stringify({ schedule_inbox_dir: inbox }),
  });
  try {
    await portfolio(r.s);
    assert.equal((await step(r.s, DAY, "aggregate")).status, 200);
    assert.equal((await step(r.s, DAY, "submit")).status, 200);
    let s = await schedulesOf(r.s.url);
    assert.deepEqual(Object.values(s).map((x) => x.tso_status), ["sent", "sent", "sent", "sent"]);

    await Deno.mkdir(inbox, { recursive: true });
    await Deno.writeTextFile(
      `${inbox}/a_ACK.xml`,
      ack(TSO.amprion, 1, "A01", "Message fully accepted"),
    );
    await Deno.writeTextFile(
      `${inbox}/b_ACK.xml`,
      ack(TSO.tennet, 1, "A02", "wrong balancing group"),
    );
    await Deno.writeTextFile(`${inbox}/c_CNF.xml`, cnf(TSO.hertz, 1));
    await Deno.writeTextFile(`${inbox}/d_ANO.xml`, ano(TSO.transnet));
    await Deno.writeTextFile(`${inbox}/e_garbage.xml`, "<not-an-answer/>");
    await Deno.writeTextFile(`${inbox}/f_half.xml`, cnf(TSO.hertz, 1).slice(0, 200));

    const imp = await call(`${r.s.url}/v1/schedule-responses/import`, {
      method: "POST",
      headers: proc,
    });
    assert.equal(imp.status, 200, JSON.stringify(imp.body));
    const files = (imp.body as { files: { file: string; outcome: string; tso_status?: string }[] })
      .files;
    assert.deepEqual(files.map((f) => [f.file, f.outcome, f.tso_status ?? null]), [
      ["a_ACK.xml", "imported", "acknowledged"],
      ["b_ACK.xml", "imported", "rejected"],
      ["c_CNF.xml", "imported", "confirmed"],
      ["d_ANO.xml", "imported", "anomaly"],
      ["e_garbage.xml", "rejected", null],
      ["f_half.xml", "rejected", null],
    ]);
    s = await schedulesOf(r.s.url);
    assert.equal(s[AREAS.amprion].tso_status, "acknowledged");
    assert.deepEqual([s[AREAS.tennet].tso_status, s[AREAS.tennet].reason_text], [
      "rejected",
      "wrong balancing group",
    ]);
    assert.equal(s[AREAS.hertz].tso_status, "confirmed");
    assert.deepEqual([s[AREAS.transnet].tso_status, s[AREAS.transnet].reason_text], [
      "anomaly",
      "counterparty time series differs",
    ]);
    assert.deepEqual(await names(inbox), []);
    assert.deepEqual(await names(`${inbox}/processed`), [
      "a_ACK.xml",
      "b_ACK.xml",
      "c_CNF.xml",
      "d_ANO.xml",
    ]);
    assert.deepEqual(await names(`${inbox}/rejected`), [
      "e_garbage.xml",
      "e_garbage.xml.reason.txt",
      "f_half.xml",
      "f_half.xml.reason.txt",
    ]);
    const kinds = (await storedEvents(r.s.kv)).map((e) => `${e.kind}:${e.level}`);
    for (
      const k of [
        "schedule_acknowledged:info",
        "schedule_rejected:error",
        "schedule_confirmed:info",
        "anomaly_reported:error",
        "schedule_answer_rejected:warning",
      ]
    ) assert.ok(kinds.includes(k), k);
    // Event texts are sentences: who did what to which schedule, why, and from which file.
    const anomaly = (await storedEvents(r.s.kv)).find((e) => e.kind === "anomaly_reported");
    assert.equal(
      anomaly?.message,
      `The TSO ${TSO.transnet} reported an anomaly in the schedule of ${DAY} for ${AREAS.transnet}: counterparty time series differs. From d_ANO.xml.`,
    );
    // Nothing is imported twice.
    const again = await call(`${r.s.url}/v1/schedule-responses/import`, {
      method: "POST",
      headers: proc,
    });
    assert.deepEqual((again.body as { files: unknown[] }).files, []);

    // A newer aggregate is handed over as version 2; a late ACK of version 1 leaves it "sent".
    await postForecast(r.s, 1, DAY, Array(96).fill(150));
    assert.equal((await step(r.s, DAY, "aggregate")).status, 200);
    assert.equal((await step(r.s, DAY, "submit")).status, 200);
    await Deno.writeTextFile(`${inbox}/g_late_ACK.xml`, ack(TSO.amprion, 1, "A01", "late"));
    // The orchestrator's tick imports the inbox whatever its state (it is stopped here).
    await r.s.bridge.orchestrator.tick("replica-a");
    s = await schedulesOf(r.s.url);
    assert.deepEqual([s[AREAS.amprion].tso_status, s[AREAS.amprion].version], ["sent", 2]);
    assert.deepEqual(await names(`${inbox}/processed`), [
      "a_ACK.xml",
      "b_ACK.xml",
      "c_CNF.xml",
      "d_ANO.xml",
      "g_late_ACK.xml",
    ]);
  } finally {
    await r.close();
  }
});
