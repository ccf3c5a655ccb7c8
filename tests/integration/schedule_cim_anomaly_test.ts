/**
 * A CIM anomaly report through the inbox (docs/fahrplan.md, "CIM anomaly report"): the built
 * IEC 62325-451-2 sample, with our day, parties and TSO, turns the day's 50Hertz schedule into
 * `anomaly` with the reason of the time series naming our balancing group (not the other
 * party's); a cut-off report, a foreign namespace and a report about another control area go to
 * rejected/ with a warning event naming the reason.
 *
 * Real parts: the app on a temp-file KV over HTTP on 127.0.0.1, the inbox and outbox on disk.
 */
import assert from "node:assert/strict";
import { messageIdentification } from "../../lib/fahrplan/document.ts";
import type { EventRecord } from "../../lib/wire/events.ts";
import { call, storedEvents } from "../support/app.ts";
import { cimFilesRig, DAY, proc, step } from "../support/day_ahead_rig.ts";
import { fixture, PARTIES } from "../support/fahrplan.ts";
import { AREAS } from "../support/portfolio.ts";
import { fileNames, schedulesOf as schedulesOfDay } from "../support/tso_answers.ts";

const HERTZ_TSO = "10XDE-VE-TRANSMK";
const NS = "urn:iec62325.351:tc57wg16:451-2:anomalydocument:5:2";

/** The built sample with our identifiers: day {@link DAY}, our sender and balancing group. */
function ourReport(): string {
  return fixture("built_CIM_ANO_20241106_10XDE-VE-TRANSMK.xml")
    .replaceAll("2024-11-05T23:00Z", "2026-11-22T23:00Z")
    .replaceAll("2024-11-06T23:00Z", "2026-11-23T23:00Z")
    .replace(
      '<receiver_MarketParticipant.mRID codingScheme="A01">11XSWHETT-V----V<',
      `<receiver_MarketParticipant.mRID codingScheme="A01">${PARTIES.sender}<`,
    )
    .replace(
      "20241106_TPS_SWHETT-V----VDE-VE-TRA",
      messageIdentification(DAY, PARTIES.sender, HERTZ_TSO),
    )
    .replaceAll("11XSWHETT-V----V", PARTIES.balancingGroup);
}

const schedulesOf = (url: string) => schedulesOfDay(url, DAY);
const names = fileNames;

Deno.test("a CIM anomaly report is imported into the day's schedules; cut-off and foreign ones are rejected", async () => {
  const r = await cimFilesRig();
  const inbox = r.inbox;
  try {
    assert.equal((await step(r.s, DAY, "aggregate")).status, 200);
    assert.equal((await step(r.s, DAY, "submit")).status, 200);
    assert.equal((await schedulesOf(r.s.url))[AREAS.hertz].tso_status, "sent");

    const report = ourReport();
    await Deno.mkdir(inbox, { recursive: true });
    // Another control area named in domain.mRID than the sending TSO's: not ours to apply.
    await Deno.writeTextFile(
      `${inbox}/a_other_area_ANO.xml`,
      report.replace(
        '<domain.mRID codingScheme="A01">10YDE-VE-------2<',
        `<domain.mRID codingScheme="A01">${AREAS.amprion}<`,
      ),
    );
    await Deno.writeTextFile(`${inbox}/b_cut_ANO.xml`, report.slice(0, report.indexOf("<Period>")));
    await Deno.writeTextFile(
      `${inbox}/c_header_only_ANO.xml`,
      report.slice(0, report.indexOf("\t<Anomaly_MarketDocument>")) +
        "</AnomalyReport_MarketDocument>\n",
    );
    await Deno.writeTextFile(
      `${inbox}/d_foreign_ANO.xml`,
      report.replace(NS, "urn:iec62325.351:tc57wg16:451-6:anomalydocument:1:0"),
    );
    await Deno.writeTextFile(`${inbox}/e_cim_ANO.xml`, report);
    // Amprion's report naming only other parties' schedules (revision 1 is not ours to trust):
    // every reason, about the latest version.
    await Deno.writeTextFile(
      `${inbox}/f_others_ANO.xml`,
      report.replaceAll(PARTIES.balancingGroup, "11XWEISWELTWS-G")
        .replaceAll(HERTZ_TSO, "10XDE-RWENET---W")
        .replaceAll("10YDE-VE-------2", AREAS.amprion),
    );

    const imp = await call(`${r.s.url}/v1/schedule-responses/import`, {
      method: "POST",
      headers: proc,
    });
    assert.equal(imp.status, 200, JSON.stringify(imp.body));
    const files = (imp.body as {
      files: { file: string; outcome: string; tso_status?: string; reason?: string }[];
    }).files;
    assert.deepEqual(files.map((f) => [f.file, f.outcome, f.tso_status ?? null]), [
      ["a_other_area_ANO.xml", "rejected", null],
      ["b_cut_ANO.xml", "rejected", null],
      ["c_header_only_ANO.xml", "rejected", null],
      ["d_foreign_ANO.xml", "rejected", null],
      ["e_cim_ANO.xml", "imported", "anomaly"],
      ["f_others_ANO.xml", "imported", "anomaly"],
    ]);
    assert.match(
      files[0].reason!,
      /10YDE-RWENET---I is not an active control area whose TSO is 10XDE-VE-TRANSMK/,
    );
    assert.match(files[1].reason!, /not well-formed/);
    assert.match(files[2].reason!, /no Anomaly_MarketDocument/);
    assert.match(
      files[3].reason!,
      /namespace .*451-6.* of <AnomalyReport_MarketDocument> is not one this service has an ENTSO-E schema for/,
    );

    const s = await schedulesOf(r.s.url);
    const hertz = s[AREAS.hertz];
    assert.deepEqual(
      [hertz.tso_status, hertz.version, hertz.reason_code, hertz.reason_text],
      ["anomaly", 1, "A29", "Counterpart time series quantity differences"],
    );
    const amprion = s[AREAS.amprion];
    assert.deepEqual(
      [amprion.tso_status, amprion.version, amprion.reason_code, amprion.reason_text],
      [
        "anomaly",
        1,
        "A29",
        "Counterpart time series quantity differences; Counterpart time series missing",
      ],
    );
    for (const area of [AREAS.tennet, AREAS.transnet]) {
      assert.equal(s[area].tso_status, "sent", area);
    }
    assert.deepEqual(await names(inbox), []);
    assert.deepEqual(await names(`${inbox}/processed`), ["e_cim_ANO.xml", "f_others_ANO.xml"]);
    assert.deepEqual(await names(`${inbox}/rejected`), [
      "a_other_area_ANO.xml",
      "a_other_area_ANO.xml.reason.txt",
      "b_cut_ANO.xml",
      "b_cut_ANO.xml.reason.txt",
      "c_header_only_ANO.xml",
      "c_header_only_ANO.xml.reason.txt",
      "d_foreign_ANO.xml",
      "d_foreign_ANO.xml.reason.txt",
    ]);
    // The validator's reason beside the file (docs/fahrplan.md, "Schema validation").
    assert.match(
      await Deno.readTextFile(`${inbox}/rejected/b_cut_ANO.xml.reason.txt`),
      /^Not a TSO answer: /,
    );
    const events = (await storedEvents(r.s.kv)) as unknown as EventRecord[];
    const anomaly = events.filter((e) =>
      e.kind === "anomaly_reported" && e.data?.control_area === AREAS.hertz
    );
    assert.equal(anomaly.length, 1);
    assert.equal(anomaly[0].level, "error");
    assert.equal(anomaly[0].delivery_day, DAY);
    assert.match(
      anomaly[0].message,
      /^The TSO 10XDE-VE-TRANSMK reported an anomaly in the schedule of 2026-11-23 for 10YDE-VE-------2 \(version 1\): Counterpart time series quantity differences/,
    );
    assert.doesNotMatch(anomaly[0].message, /missing/);
    const rejected = events.filter((e) => e.kind === "schedule_answer_rejected");
    assert.deepEqual(rejected.map((e) => e.data?.file), [
      "a_other_area_ANO.xml",
      "b_cut_ANO.xml",
      "c_header_only_ANO.xml",
      "d_foreign_ANO.xml",
    ]);
    for (const e of rejected) {
      assert.match(e.message, /Not a TSO answer|not an active control area/);
    }
  } finally {
    await r.close();
  }
});
