/**
 * TSO answers (docs/fahrplan.md; lib/fahrplan/answers.ts): every real
 * sample in tests/fixtures/fahrplan reads into the one shape with the values the files carry;
 * garbage, a cut-off file and foreign XML are refused with the reason, never a crash.
 */
import assert from "node:assert/strict";
import { parseAnswer, type TsoAnswer, UnreadableAnswer } from "../../lib/fahrplan/answers.ts";
import { fixture } from "../support/fahrplan.ts";

const ESS_ACK = "20241018_PPS_FINGRID_10XDE-ENBW--HGJL_001_ACK_2024-10-16T10-46-50Z.xml";
const CIM_ACK = "20241016_PPS_11Y0-0000-2483-X_10XDE-VE-FRISMK_086_ACK_2024-10-16T10-48-22Z.xml";
const ESS_CNF = "20241113_TPS_11XSWVIERNHEIMVR_10XDE-EON-NETZ-C_001_CNF_2024-11-13T09-00-00Z.xml";
const CIM_CNF = "20241104_TPS_11X0-0000-0706-U_10XDE-EON-NETZ-C_007_CNF_2024-11-03T14-18-21Z.xml";
const ESS_ANO = "20241105_TPS_10YDE-VE-------2_10XDE-VE-TRANSMK_001_ANO_2024-11-05T09-10-46Z.XML";

const NONE = { time_interval: null, delivery_day: null, anomalies: [] };

Deno.test("ESS AcknowledgementMessage: reason A01, fully accepted, answering version 1", () => {
  assert.deepEqual(
    parseAnswer(fixture(ESS_ACK)),
    {
      kind: "ack",
      format: "ess",
      message_id: "20241018-10XDE-ENBW--HGJL-A04-56614",
      sender: "10XDE-ENBW--HGJL",
      receiver: "11XWEISWELTWS-G",
      created_at: "2024-10-16T10:46:50Z",
      referenced_id: "20241018_TPS_WEISWELTWS-GDE-ENBW--",
      referenced_version: 1,
      accepted: true,
      reason_code: "A01",
      reason_text: "Message fully accepted",
      ...NONE,
    } satisfies TsoAnswer,
  );
});

Deno.test("CIM Acknowledgement_MarketDocument: revision 86 accepted (A01)", () => {
  assert.deepEqual(
    parseAnswer(fixture(CIM_ACK)),
    {
      kind: "ack",
      format: "cim",
      message_id: "20241016-10XDE-VE-FRISMK-57228",
      sender: "10XDE-VE-FRISMK",
      receiver: "11Y0-0000-2483-X",
      created_at: "2024-10-16T10:48:53Z",
      referenced_id: "241016_Y0-0000-2483-_XDE-VE-TRA",
      referenced_version: 86,
      accepted: true,
      reason_code: "A01",
      reason_text: "Message fully accepted",
      ...NONE,
    } satisfies TsoAnswer,
  );
});

Deno.test("ESS ConfirmationReport: A06 for version 1 of delivery day 2024-11-13", () => {
  assert.deepEqual(
    parseAnswer(fixture(ESS_CNF)),
    {
      kind: "cnf",
      format: "ess",
      message_id: "20241113-10XDE-EON-NETZ-C-CF-47562",
      sender: "10XDE-EON-NETZ-C",
      receiver: "11XSWVIERNHEIMVR",
      created_at: "2024-11-13T09:00:54Z",
      referenced_id: "20241113_TPS_SWVIERNHEIMVRDE-EON-NE",
      referenced_version: 1,
      accepted: null,
      reason_code: "A06",
      reason_text: null,
      time_interval: { start: "2024-11-12T23:00Z", end: "2024-11-13T23:00Z" },
      delivery_day: "2024-11-13",
      anomalies: [],
    } satisfies TsoAnswer,
  );
});

Deno.test("CIM Confirmation_MarketDocument: A06 for revision 7 of delivery day 2024-11-04", () => {
  assert.deepEqual(
    parseAnswer(fixture(CIM_CNF)),
    {
      kind: "cnf",
      format: "cim",
      message_id: "20241104-10XDE-EON-NETZ-C-60266",
      sender: "10XDE-EON-NETZ-C",
      receiver: "11X0-0000-0706-U",
      created_at: "2024-11-03T14:18:21Z",
      referenced_id: "241104_X0-0000-0706-_XDE-EON-NE",
      referenced_version: 7,
      accepted: null,
      reason_code: "A06",
      reason_text: "Schedule global position accepted",
      time_interval: { start: "2024-11-03T23:00Z", end: "2024-11-04T23:00Z" },
      delivery_day: "2024-11-04",
      anomalies: [],
    } satisfies TsoAnswer,
  );
});

Deno.test("ESS AnomalyReport without anomalies: interval 2024-11-05T23:00Z/…, Berlin day 2024-11-06", () => {
  assert.deepEqual(
    parseAnswer(fixture(ESS_ANO)),
    {
      kind: "ano",
      format: "ess",
      message_id: "20241106-10XDE-VE-TRANSMK-42427",
      sender: "10XDE-VE-TRANSMK",
      receiver: "11XSWHETT-V----V",
      created_at: "2024-11-05T08:10:46Z",
      referenced_id: null,
      referenced_version: null,
      accepted: null,
      reason_code: null,
      reason_text: null,
      time_interval: { start: "2024-11-05T23:00Z", end: "2024-11-06T23:00Z" },
      delivery_day: "2024-11-06",
      anomalies: [],
    } satisfies TsoAnswer,
  );
});

Deno.test("an ACK with reason A02 is a rejection", () => {
  const xml = fixture(ESS_ACK).replace('<ReasonCode v="A01"/>', '<ReasonCode v="A02"/>');
  const a = parseAnswer(xml);
  assert.equal(a.accepted, false);
  assert.equal(a.reason_code, "A02");
  const cim = parseAnswer(fixture(CIM_ACK).replace("<code>A01</code>", "<code>A02</code>"));
  assert.equal(cim.accepted, false);
});

Deno.test("an AnomalyReport lists each time series the TSO found wrong", () => {
  // The sample's structure with one TimeSeriesAnomaly (ESS 2.3 anomaly-xml.dtd).
  const xml = fixture(ESS_ANO).replace(
    "</AnomalyReport>",
    `<TimeSeriesAnomaly>
      <SendersTimeSeriesIdentification v="11X0-0000-0123-O-11XEPEX-SPOT-DEJ-P"/>
      <SendersTimeSeriesVersion v="2"/>
      <InParty v="11X0-0000-0123-O" codingScheme="A01"/>
      <OutParty v="11XEPEX-SPOT-DEJ" codingScheme="A01"/>
      <Reason><ReasonCode v="A59"/><ReasonText v="Not compliant to local market rules"/></Reason>
    </TimeSeriesAnomaly>
</AnomalyReport>`,
  );
  assert.deepEqual(parseAnswer(xml).anomalies, [{
    time_series_id: "11X0-0000-0123-O-11XEPEX-SPOT-DEJ-P",
    time_series_version: 2,
    in_party: "11X0-0000-0123-O",
    out_party: "11XEPEX-SPOT-DEJ",
    reason_code: "A59",
    reason_text: "Not compliant to local market rules",
  }]);
});

Deno.test("an interval that is not one Berlin day gives no delivery day", () => {
  const xml = fixture(ESS_ANO).replace("2024-11-06T23:00Z", "2024-11-06T22:00Z");
  const a = parseAnswer(xml);
  assert.deepEqual(a.time_interval, { start: "2024-11-05T23:00Z", end: "2024-11-06T22:00Z" });
  assert.equal(a.delivery_day, null);
});

function refused(xml: string, reason: RegExp) {
  assert.throws(() => parseAnswer(xml), (err: unknown) => {
    assert.ok(err instanceof UnreadableAnswer, String(err));
    assert.equal(err.code, "ERR_FAHRPLAN_ANSWER");
    assert.match(err.message, /^Not a TSO answer: /);
    assert.match(err.message, reason);
    return true;
  });
}

Deno.test("garbage, an empty file and binary noise are refused with the reason", () => {
  refused("", /the file is empty/);
  refused("   \n", /the file is empty/);
  refused("this is no XML at all", /not well-formed .* line 1, column 1/);
  refused("\u0000\u0001PK\u0003\u0004", /not well-formed/);
  refused('{"kind": "ack"}', /not well-formed/);
});

Deno.test("a half-written answer is refused, wherever it was cut", () => {
  const full = fixture(ESS_CNF);
  for (const at of [10, 200, 900, 3000, full.length - 30, full.length - 5]) {
    refused(full.slice(0, at), /not well-formed|no root element/);
  }
  const cim = fixture(CIM_ACK);
  refused(cim.slice(0, cim.indexOf("<Reason>") + 8), /not well-formed/);
});

Deno.test("foreign XML and our own schedules are not answers: the root element is named", () => {
  refused(
    '<?xml version="1.0"?><html><body>Gateway Timeout</body></html>',
    /root element is <html>/,
  );
  refused(
    fixture("20241022_TPS_11X0-1111-0762-I_10XDE-AOE-HTCC-C_001.xml"),
    /root element is <ScheduleMessage>, not one of AcknowledgementMessage/,
  );
  refused(
    fixture("20241008_TPS_10XEN-VE-FRISMK_11X0-1111-0619-M_002.xml"),
    /root element is <Schedule_MarketDocument>/,
  );
});

Deno.test("an answer without its identification or sender is refused, naming the element", () => {
  refused(
    fixture(ESS_ACK).replace(/<SenderIdentification[^>]*\/>/, ""),
    /no SenderIdentification/,
  );
  // CIM: ENTSO-E's schema names the missing element before the reader looks.
  refused(
    fixture(CIM_CNF).replace(/<mRID>[^<]*<\/mRID>/, ""),
    /confirmation_v5_0\.xsd: line 4: element type: This element is not expected\. Expected is \( mRID \)/,
  );
  refused("<AcknowledgementMessage/>", /<AcknowledgementMessage> is empty/);
});
