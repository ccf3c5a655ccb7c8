/**
 * The CIM anomaly report (docs/fahrplan.md, "CIM anomaly report"; lib/fahrplan/cim_anomaly.ts):
 * the built sample (IEC 62325-451-2 element list, the ESS sample's content) reads into the one
 * answer shape with every anomaly; other namespace versions read the same; a report cut off but
 * well-formed, a foreign namespace and wrong roles are refused with the reason.
 */
import assert from "node:assert/strict";
import { parseAnswer, UnreadableAnswer } from "../../lib/fahrplan/answers.ts";
import { fixture } from "../support/fahrplan.ts";

const CIM_ANO = "built_CIM_ANO_20241106_10XDE-VE-TRANSMK.xml";
const NS = "urn:iec62325.351:tc57wg16:451-2:anomalydocument:5:2";
const WHOLE_DAY = { start: "2024-11-05T23:00Z", end: "2024-11-06T23:00Z" };

Deno.test("CIM AnomalyReport_MarketDocument: header, two documents, periods, points and reasons", () => {
  const a = parseAnswer(fixture(CIM_ANO));
  assert.deepEqual({ ...a, anomalies: [] }, {
    kind: "ano",
    format: "cim",
    message_id: "20241106-10XDE-VE-TRANSMK-42427",
    sender: "10XDE-VE-TRANSMK",
    receiver: "11XSWHETT-V----V",
    created_at: "2024-11-05T08:10:46Z",
    referenced_id: "20241106_TPS_SWHETT-V----VDE-VE-TRA",
    referenced_version: 1,
    accepted: null,
    reason_code: "A29",
    reason_text: "Counterpart time series quantity differences",
    time_interval: WHOLE_DAY,
    delivery_day: "2024-11-06",
    anomalies: [],
    control_area: "10YDE-VE-------2",
  });
  assert.deepEqual(a.anomalies, [
    {
      time_series_id: "11XSWHETT-V----V-11XEPEX-SPOT-DEJ-P",
      time_series_version: 1,
      in_party: "11XSWHETT-V----V",
      out_party: "11XEPEX-SPOT-DEJ",
      reason_code: "A29",
      reason_text: "Counterpart time series quantity differences",
      party: "11XSWHETT-V----V",
      schedule_id: "20241106_TPS_SWHETT-V----VDE-VE-TRA",
      schedule_version: 1,
      in_area: "10YDE-VE-------2",
      out_area: "10YDE-VE-------2",
      periods: [{
        time_interval: WHOLE_DAY,
        resolution: "PT15M",
        points: [{ position: 33, quantity: 12.5 }, { position: 34, quantity: 12.5 }],
      }],
    },
    {
      time_series_id: "11XEPEX-SPOT-DEJ-11XWEISWELTWS-G-S",
      time_series_version: 4,
      in_party: "11XWEISWELTWS-G",
      out_party: "11XEPEX-SPOT-DEJ",
      reason_code: "A28",
      reason_text: "Counterpart time series missing",
      party: "11XEPEX-SPOT-DEJ",
      schedule_id: "20241106_TPS_EPEX-SPOT-DEJDE-VE-TRA",
      schedule_version: 4,
      in_area: "10YDE-VE-------2",
      out_area: "10YDE-VE-------2",
      periods: [{
        time_interval: WHOLE_DAY,
        resolution: "PT15M",
        points: [{ position: 1, quantity: 3 }],
      }],
    },
  ]);
});

Deno.test("any namespace version with a schema and a prefixed document read the same; no namespace is refused", () => {
  const base = parseAnswer(fixture(CIM_ANO));
  const v51 = fixture(CIM_ANO).replace(NS, NS.replace(":5:2", ":5:1"));
  assert.deepEqual(parseAnswer(v51), base);
  // Every element in the namespace through a prefix (a prefixed root alone would leave its
  // children in no namespace, which the schema refuses).
  const prefixed = fixture(CIM_ANO)
    .replace(/<(\/?)(?=[A-Za-z_])/g, "<$1ano:")
    .replace(` xmlns="${NS}"`, ` xmlns:ano="${NS}"`);
  assert.deepEqual(parseAnswer(prefixed), base);
  refused(
    fixture(CIM_ANO).replace(` xmlns="${NS}"`, ""),
    /the namespace \(none\) of <AnomalyReport_MarketDocument> is not one this service has an ENTSO-E schema for/,
  );
});

Deno.test("several reasons on one time series: the first code, the texts joined", () => {
  const xml = fixture(CIM_ANO).replace(
    "<text>Counterpart time series quantity differences</text>\n\t\t\t</Reason>",
    "<text>Counterpart time series quantity differences</text>\n\t\t\t</Reason>" +
      "<Reason><code>A59</code><text>Not compliant to local market rules</text></Reason>",
  );
  const first = parseAnswer(xml).anomalies[0];
  assert.equal(first.reason_code, "A29");
  assert.equal(
    first.reason_text,
    "Counterpart time series quantity differences; Not compliant to local market rules",
  );
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

Deno.test("a CIM anomaly report cut off anywhere is refused, also when still well-formed", () => {
  const full = fixture(CIM_ANO);
  for (const at of [120, 700, 1500, full.indexOf("<Period>"), full.length - 40]) {
    refused(full.slice(0, at), /not well-formed|no root element/);
  }
  const headerOnly = full.slice(0, full.indexOf("\t<Anomaly_MarketDocument>")) +
    "</AnomalyReport_MarketDocument>\n";
  refused(headerOnly, /no Anomaly_MarketDocument/);
  refused(
    full.replace(/<TimeSeries>[\s\S]*?<\/TimeSeries>/, ""),
    /schema iec62325-451-2-anomaly_v5_2\.xsd: line \d+: element Anomaly_MarketDocument: Missing child element\(s\)\. Expected is \( TimeSeries \)/,
  );
  refused(
    full.replace(/<Reason>\s*<code>A28<\/code>[\s\S]*?<\/Reason>/, ""),
    /line \d+: element TimeSeries: Missing child element\(s\)\. Expected is one of \( Period, Reason \)/,
  );
  refused(
    full.replace(
      /<schedule_Time_Period\.timeInterval>[\s\S]*?<\/schedule_Time_Period\.timeInterval>/,
      "",
    ),
    /element domain\.mRID: This element is not expected\. Expected is \( schedule_Time_Period\.timeInterval \)/,
  );
  refused(
    full.replace("<mRID>20241106-10XDE-VE-TRANSMK-42427</mRID>", ""),
    /element createdDateTime: This element is not expected\. Expected is \( mRID \)/,
  );
});

Deno.test("foreign variants are refused: another namespace, other roles", () => {
  const full = fixture(CIM_ANO);
  refused(
    full.replace(NS, "urn:iec62325.351:tc57wg16:451-6:anomalydocument:1:0"),
    /namespace urn:iec62325\.351:tc57wg16:451-6:anomalydocument:1:0 of <AnomalyReport_MarketDocument> is not one this service has an ENTSO-E schema for \(known versions of AnomalyReport_MarketDocument: 5\.0, 5\.1, 5\.2, 5\.3\)/,
  );
  refused(
    full.replace(NS, "http://example.com/anomaly"),
    /namespace http:\/\/example\.com\/anomaly/,
  );
  refused(
    full.replace(
      "<sender_MarketParticipant.marketRole.type>A04<",
      "<sender_MarketParticipant.marketRole.type>A08<",
    ),
    /sender has role A08 .*not A04/,
  );
  refused(
    full.replace(
      "<receiver_MarketParticipant.marketRole.type>A08<",
      "<receiver_MarketParticipant.marketRole.type>A04<",
    ),
    /receiver has role A04 .*not A08/,
  );
});
