/**
 * ESS documents against the TSOs' DTDs where an operator has them (`ESS_DTD_DIR`; docs/fahrplan.md
 * "Schema validation"). No public copy of the ESS DTDs exists, so this test writes its own small
 * DTDs — NOT the official ones — that follow the element order of the real samples; the same
 * validation step then accepts what the renderer writes and refuses a document the DTD refuses,
 * naming the element. Without `ESS_DTD_DIR` nothing is checked beyond the structural rules.
 */
import assert from "node:assert/strict";
import { DocumentSchemaInvalid } from "../../lib/domain/errors.ts";
import { buildSchedule } from "../../lib/fahrplan/document.ts";
import { setEssDtdDir } from "../../lib/fahrplan/ess_dtd_dir.ts";
import { renderEss } from "../../lib/fahrplan/render.ts";
import { renderStatusRequest } from "../../lib/fahrplan/status_request_document.ts";
import { loadSettings, SettingsError } from "../../lib/settings.ts";
import { scheduleInput } from "../support/fahrplan.ts";

/** A test DTD, not the TSOs' official one. */
const V = `<!ATTLIST %s v CDATA #REQUIRED codingScheme CDATA #IMPLIED>`;
const el = (names: string[]) =>
  names.map((n) => `<!ELEMENT ${n} EMPTY>\n${V.replace("%s", n)}`).join("\n");
const SCHEDULE_DTD =
  `<!-- TEST DTD written for tests/unit/fahrplan_ess_dtd_test.ts: NOT the official ESS 2.3 DTD -->
<!ELEMENT ScheduleMessage (MessageIdentification, MessageVersion, MessageType, ProcessType,
  ScheduleClassificationType, SenderIdentification, SenderRole, ReceiverIdentification,
  ReceiverRole, MessageDateTime, ScheduleTimeInterval, ScheduleTimeSeries+)>
<!ATTLIST ScheduleMessage DtdVersion CDATA #REQUIRED DtdRelease CDATA #REQUIRED>
<!ELEMENT ScheduleTimeSeries (SendersTimeSeriesIdentification, SendersTimeSeriesVersion,
  BusinessType, Product, ObjectAggregation, InArea, OutArea, InParty, OutParty, MeasurementUnit,
  Period)>
<!ELEMENT Period (TimeInterval, Resolution, Interval+)>
<!ELEMENT Interval (Pos, Qty)>
${
    el([
      "MessageIdentification",
      "MessageVersion",
      "MessageType",
      "ProcessType",
      "ScheduleClassificationType",
      "SenderIdentification",
      "SenderRole",
      "ReceiverIdentification",
      "ReceiverRole",
      "MessageDateTime",
      "ScheduleTimeInterval",
      "SendersTimeSeriesIdentification",
      "SendersTimeSeriesVersion",
      "BusinessType",
      "Product",
      "ObjectAggregation",
      "InArea",
      "OutArea",
      "InParty",
      "OutParty",
      "MeasurementUnit",
      "TimeInterval",
      "Resolution",
      "Pos",
      "Qty",
    ])
  }`;
const REQUEST_DTD = `<!-- TEST DTD, NOT the official ESS request DTD -->
<!ELEMENT StatusRequest (MessageIdentification, MessageType, ProcessType, SenderIdentification,
  SenderRole, ReceiverIdentification, ReceiverRole, MessageDateTime, RequestedTimeInterval)>
<!ATTLIST StatusRequest DtdVersion CDATA #REQUIRED DtdRelease CDATA #REQUIRED>
${
  el([
    "MessageIdentification",
    "MessageType",
    "ProcessType",
    "SenderIdentification",
    "SenderRole",
    "ReceiverIdentification",
    "ReceiverRole",
    "MessageDateTime",
    "RequestedTimeInterval",
  ])
}`;

function dtdDir(schedule = SCHEDULE_DTD): string {
  const dir = Deno.makeTempDirSync({ prefix: "bridge-ess-dtd-" });
  Deno.writeTextFileSync(`${dir}/schedule-xml.dtd`, schedule);
  Deno.writeTextFileSync(`${dir}/request-xml.dtd`, REQUEST_DTD);
  return dir;
}

Deno.test("ESS DTD: with ESS_DTD_DIR the schedule and the status request are checked and pass", () => {
  const dir = dtdDir();
  setEssDtdDir(dir);
  try {
    for (const day of ["2027-03-28", "2026-10-25"]) {
      assert.match(renderEss(buildSchedule(scheduleInput(day, 2))), /<ScheduleMessage /);
    }
    const srq = renderStatusRequest({
      day: "2026-11-25",
      sender: "11X0-1111-0123-N",
      receiver: "10XDE-EON-NETZ-C",
      createdAtMs: Date.UTC(2026, 10, 24, 6, 30),
    }, "ess");
    assert.match(srq, /<RequestedTimeInterval v="2026-11-24T23:00Z\/2026-11-25T23:00Z"\/>/);
  } finally {
    setEssDtdDir(null);
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("ESS DTD: a DTD that wants another element refuses the document, naming it; nothing leaves", () => {
  // This test DTD demands a Reason after the time series, which a schedule does not carry.
  const dir = dtdDir(
    SCHEDULE_DTD.replace("ScheduleTimeSeries+)>", "ScheduleTimeSeries+, Reason)>") +
      "\n<!ELEMENT Reason EMPTY>",
  );
  setEssDtdDir(dir);
  try {
    assert.throws(() => renderEss(buildSchedule(scheduleInput("2026-11-24"))), (err: Error) => {
      assert.ok(err instanceof DocumentSchemaInvalid);
      assert.match(
        err.message,
        /^20261124_TPS_.*_001\.xml was not sent: it does not validate against the ESS DTD schedule-xml\.dtd: line \d+: .*ScheduleMessage/,
      );
      return true;
    });
  } finally {
    setEssDtdDir(null);
    Deno.removeSync(dir, { recursive: true });
  }
  // Without ESS_DTD_DIR: the structural rules alone, the same document leaves.
  assert.match(renderEss(buildSchedule(scheduleInput("2026-11-24"))), /<ScheduleMessage /);
});

Deno.test("ESS DTD: ESS_DTD_DIR without schedule-xml.dtd stops the start in words", () => {
  const empty = Deno.makeTempDirSync();
  assert.throws(
    () => loadSettings({ PROCESS_API_KEYS: "ops:0123456789abcdef0123", ESS_DTD_DIR: empty }),
    (err: Error) => {
      assert.ok(err instanceof SettingsError);
      assert.match(err.message, /ESS_DTD_DIR: expected a folder holding the TSOs' ESS DTDs/);
      return true;
    },
  );
  Deno.removeSync(empty);
});
