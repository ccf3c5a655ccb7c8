/**
 * The CIM anomaly report (IEC 62325-451-2, `AnomalyReport_MarketDocument`, namespace
 * `urn:iec62325.351:tc57wg16:451-2:anomalydocument:<major>:<minor>`, any version), read into the
 * one answer shape of `answers.ts` (docs/fahrplan.md, "CIM anomaly report").
 *
 * Header: `mRID`, `createdDateTime`, sender (role A04, the TSO), receiver (role A08, us),
 * `schedule_Time_Period.timeInterval` (the delivery day), `domain.mRID` (the control area). Then
 * one or more `Anomaly_MarketDocument`, each naming a schedule (`marketParticipant.mRID`,
 * `mRID`, `revisionNumber`) and its `TimeSeries` found wrong: in/out parties and areas, `Period`
 * with the points, `Reason` with `code` and `text`.
 *
 * A report that is cut off but still well-formed (no `Anomaly_MarketDocument`, a document
 * without its time series or reason) or a foreign variant (another namespace, other roles) is
 * refused with {@link UnreadableAnswer} naming what is missing or wrong.
 * @module
 */
import {
  type Anomaly,
  type AnomalyPeriod,
  cimInterval,
  dayOf,
  int,
  type Node,
  required,
  text,
  type TsoAnswer,
  UnreadableAnswer,
} from "./answer_shape.ts";

/** The namespaces of IEC 62325-451-2's anomaly document, every version. */
const NAMESPACE = /^urn:iec62325\.351:tc57wg16:451-2:anomalydocument:\d+:\d+$/;

function num(s: string | null): number | null {
  if (s === null || s.trim() === "") return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

function list(node: Node): Node[] {
  return Array.isArray(node) ? node : node === undefined || node === null ? [] : [node];
}

/** The role element's code must be `want` when present. @throws {UnreadableAnswer} */
function role(root: Node, element: string, want: string, who: string): void {
  const got = text(root[element]);
  if (got !== null && got !== want) {
    throw new UnreadableAnswer(
      `the anomaly report's ${who} has role ${got} (${element}), not ${want}`,
    );
  }
}

function period(p: Node): AnomalyPeriod {
  return {
    time_interval: cimInterval(p?.timeInterval),
    resolution: text(p?.resolution),
    points: list(p?.Point).map((pt: Node) => ({
      position: int(text(pt?.position)),
      quantity: num(text(pt?.quantity)),
    })),
  };
}

function timeSeries(doc: Node, ts: Node, where: string): Anomaly {
  const reasons = list(ts?.Reason);
  const code = text(reasons[0]?.code);
  if (!code) throw new UnreadableAnswer(`the anomaly report's ${where} has no Reason code`);
  const texts = reasons.map((r: Node) => text(r?.text)).filter((t): t is string => !!t);
  return {
    time_series_id: text(ts.mRID),
    time_series_version: int(text(ts.version)),
    in_party: text(ts["in_MarketParticipant.mRID"]),
    out_party: text(ts["out_MarketParticipant.mRID"]),
    reason_code: code,
    reason_text: texts.length ? texts.join("; ") : null,
    party: text(doc["marketParticipant.mRID"]),
    schedule_id: text(doc.mRID),
    schedule_version: int(text(doc.revisionNumber)),
    in_area: text(ts["in_Domain.mRID"]),
    out_area: text(ts["out_Domain.mRID"]),
    periods: list(ts.Period).map(period),
  };
}

/**
 * Reads the root element of an `AnomalyReport_MarketDocument`.
 * @param root the parsed root element (namespace prefixes removed)
 * @param namespace the root's declared namespace, `null` when none is declared
 * @returns the answer (`kind` `ano`, `format` `cim`); `referenced_id`/`referenced_version` are
 *   those of the first `Anomaly_MarketDocument`; `control_area` is `domain.mRID`
 * @throws {UnreadableAnswer} for another namespace, a sender role other than A04 or receiver
 *   role other than A08, a missing `mRID`, sender, receiver or schedule interval, no
 *   `Anomaly_MarketDocument`, or one without `mRID`, `TimeSeries` or a `Reason` code
 */
export function fromCimAnomalyReport(root: Node, namespace: string | null): TsoAnswer {
  if (namespace !== null && !NAMESPACE.test(namespace)) {
    throw new UnreadableAnswer(
      `the anomaly report's namespace ${namespace} is not IEC 62325-451-2's anomaly document`,
    );
  }
  role(root, "sender_MarketParticipant.marketRole.type", "A04", "sender");
  role(root, "receiver_MarketParticipant.marketRole.type", "A08", "receiver");
  const message_id = required(text(root.mRID), "mRID");
  const sender = required(
    text(root["sender_MarketParticipant.mRID"]),
    "sender_MarketParticipant.mRID",
  );
  const receiver = required(
    text(root["receiver_MarketParticipant.mRID"]),
    "receiver_MarketParticipant.mRID",
  );
  const interval = cimInterval(root["schedule_Time_Period.timeInterval"]);
  if (!interval) required(null, "schedule_Time_Period.timeInterval");
  const docs = list(root.Anomaly_MarketDocument);
  if (!docs.length) required(null, "Anomaly_MarketDocument");
  const anomalies: Anomaly[] = [];
  docs.forEach((doc: Node, i: number) => {
    const where = `Anomaly_MarketDocument ${i + 1}`;
    if (!text(doc?.mRID)) throw new UnreadableAnswer(`the anomaly report's ${where} has no mRID`);
    const series = list(doc.TimeSeries);
    if (!series.length) {
      throw new UnreadableAnswer(`the anomaly report's ${where} has no TimeSeries`);
    }
    series.forEach((ts: Node, j: number) =>
      anomalies.push(timeSeries(doc, ts, `${where}, TimeSeries ${j + 1}`))
    );
  });
  const first = anomalies[0];
  return {
    kind: "ano",
    format: "cim",
    message_id,
    sender,
    receiver,
    created_at: text(root.createdDateTime),
    referenced_id: first.schedule_id ?? null,
    referenced_version: first.schedule_version ?? null,
    accepted: null,
    reason_code: first.reason_code,
    reason_text: first.reason_text,
    time_interval: interval,
    delivery_day: dayOf(interval),
    anomalies,
    control_area: text(root["domain.mRID"]),
  };
}
