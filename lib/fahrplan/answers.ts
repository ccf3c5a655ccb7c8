/**
 * TSO answers to schedules (docs/fahrplan.md), read into one shape
 * whatever their format:
 *
 * - ESS 2.3 (ENTSO-E Scheduling System implementation guide, DTD style): `AcknowledgementMessage`,
 *   `ConfirmationReport`, `AnomalyReport`;
 * - CIM (IEC 62325-451-1 acknowledgement, IEC 62325-451-2 confirmation and anomaly report):
 *   `Acknowledgement_MarketDocument`, `Confirmation_MarketDocument`,
 *   `AnomalyReport_MarketDocument` (any namespace version; the anomaly report is read in
 *   `cim_anomaly.ts`).
 *
 * Anything else — not XML, cut off, another document — is refused with
 * {@link UnreadableAnswer} naming the reason; the parser never throws anything else.
 * @module
 */
import { XMLParser, XMLValidator } from "fast-xml-parser";
import {
  type Anomaly,
  type AnswerKind,
  cimInterval,
  dayOf,
  int,
  type Node,
  required,
  text,
  type TsoAnswer,
  unescapeXml,
  UnreadableAnswer,
} from "./answer_shape.ts";
import { fromCimAnomalyReport } from "./cim_anomaly.ts";
import { checkCim, describeProblems } from "./cim_schema.ts";

export {
  type Anomaly,
  type AnomalyPeriod,
  type AnswerKind,
  type TsoAnswer,
  UnreadableAnswer,
} from "./answer_shape.ts";

const ARRAYS = new Set([
  "Reason",
  "TimeSeriesAnomaly",
  "TimeSeriesConfirmation",
  "Interval",
  "Point",
  "Anomaly_MarketDocument",
  "TimeSeries",
  "Period",
]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  textNodeName: "#text",
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: false,
  isArray: (name) => ARRAYS.has(name),
});

const ROOTS: Record<string, { kind: AnswerKind; format: "ess" | "cim" }> = {
  AcknowledgementMessage: { kind: "ack", format: "ess" },
  ConfirmationReport: { kind: "cnf", format: "ess" },
  AnomalyReport: { kind: "ano", format: "ess" },
  Acknowledgement_MarketDocument: { kind: "ack", format: "cim" },
  Confirmation_MarketDocument: { kind: "cnf", format: "cim" },
  AnomalyReport_MarketDocument: { kind: "ano", format: "cim" },
};

/** Value of an ESS element (`<x v="…"/>`). */
function attr(node: Node): string | null {
  const v = node?.["@_v"];
  return typeof v === "string" ? unescapeXml(v) : null;
}

function essInterval(node: Node): { start: string; end: string } | null {
  const v = attr(node);
  const m = v?.match(/^([^/]+)\/([^/]+)$/);
  return m ? { start: m[1], end: m[2] } : null;
}

function accepted(kind: AnswerKind, code: string | null): boolean | null {
  if (kind !== "ack") return null;
  return code === "A01" ? true : code === "A02" ? false : null;
}

function fromEss(root: Node, kind: AnswerKind): TsoAnswer {
  const reason = root.Reason?.[0];
  const ref = kind === "cnf"
    ? [root.ConfirmedMessageIdentification, root.ConfirmedMessageVersion]
    : [root.ReceivingMessageIdentification, root.ReceivingMessageVersion];
  const interval = essInterval(root.ScheduleTimeInterval ?? root.ReceivingMessageTimeInterval);
  const code = attr(reason?.ReasonCode);
  return {
    kind,
    format: "ess",
    message_id: required(attr(root.MessageIdentification), "MessageIdentification"),
    sender: required(attr(root.SenderIdentification), "SenderIdentification"),
    receiver: required(attr(root.ReceiverIdentification), "ReceiverIdentification"),
    created_at: attr(root.MessageDateTime),
    referenced_id: attr(ref[0]),
    referenced_version: int(attr(ref[1])),
    accepted: accepted(kind, code),
    reason_code: code,
    reason_text: attr(reason?.ReasonText),
    time_interval: interval,
    delivery_day: dayOf(interval),
    anomalies: (root.TimeSeriesAnomaly ?? []).map((a: Node): Anomaly => ({
      time_series_id: attr(a.SendersTimeSeriesIdentification),
      time_series_version: int(attr(a.SendersTimeSeriesVersion)),
      in_party: attr(a.InParty),
      out_party: attr(a.OutParty),
      reason_code: attr(a.Reason?.[0]?.ReasonCode),
      reason_text: attr(a.Reason?.[0]?.ReasonText),
    })),
  };
}

function fromCim(root: Node, kind: AnswerKind): TsoAnswer {
  const reason = root.Reason?.[0];
  const prefix = kind === "cnf" ? "confirmed_MarketDocument" : "received_MarketDocument";
  const interval = cimInterval(
    root["schedule_Period.timeInterval"] ?? root["received_MarketDocument.timeInterval"],
  );
  const code = text(reason?.code);
  return {
    kind,
    format: "cim",
    message_id: required(text(root.mRID), "mRID"),
    sender: required(text(root["sender_MarketParticipant.mRID"]), "sender_MarketParticipant.mRID"),
    receiver: required(
      text(root["receiver_MarketParticipant.mRID"]),
      "receiver_MarketParticipant.mRID",
    ),
    created_at: text(root.createdDateTime),
    referenced_id: text(root[`${prefix}.mRID`]),
    referenced_version: int(text(root[`${prefix}.revisionNumber`])),
    accepted: accepted(kind, code),
    reason_code: code,
    reason_text: text(reason?.text),
    time_interval: interval,
    delivery_day: dayOf(interval),
    anomalies: [],
  };
}

/**
 * Reads a TSO answer file.
 * @param xml the file's text (a leading byte-order mark is ignored)
 * @returns the answer in one shape, for ESS and CIM alike
 * @throws {UnreadableAnswer} for text that is not well-formed XML (line and column named), a
 *   document of another kind (its root element named), a CIM answer that ENTSO-E's schema of its
 *   namespace refuses or whose namespace has no schema here (`./cim_schema.ts`; the element and the
 *   validator's finding named), or an answer without its identification, sender or receiver
 */
export function parseAnswer(xml: string): TsoAnswer {
  const body = xml.replace(/^\uFEFF/, "");
  if (body.trim() === "") throw new UnreadableAnswer("the file is empty");
  const valid = XMLValidator.validate(body);
  if (valid !== true) {
    const { msg, line, col } = valid.err;
    throw new UnreadableAnswer(
      `the XML is not well-formed (${msg} at line ${line}, column ${col})`,
    );
  }
  let tree: Node;
  try {
    tree = parser.parse(body);
  } catch (err) {
    throw new UnreadableAnswer(`the XML could not be read (${(err as Error).message})`);
  }
  const rootName = Object.keys(tree).find((k) => !k.startsWith("?") && !k.startsWith("!"));
  if (!rootName) throw new UnreadableAnswer("the file has no root element");
  const known = ROOTS[rootName];
  if (!known) {
    const names = Object.keys(ROOTS).join(", ");
    throw new UnreadableAnswer(`the root element is <${rootName}>, not one of ${names}`);
  }
  const root = tree[rootName];
  if (typeof root !== "object" || root === null) {
    throw new UnreadableAnswer(`<${rootName}> is empty`);
  }
  if (known.format === "ess") return fromEss(root, known.kind);
  // Before anything is read from it: the schema of its own namespace (docs/fahrplan.md).
  const check = checkCim(body);
  if (check.problems.length) {
    throw new UnreadableAnswer(
      check.schema
        ? `the CIM document does not validate ${describeProblems(check)}`
        : describeProblems(check),
    );
  }
  return rootName === "AnomalyReport_MarketDocument"
    ? fromCimAnomalyReport(root, rootNamespace(body))
    : fromCim(root, known.kind);
}

/** The namespace of the root element (default or of its prefix), `null` when none is declared. */
function rootNamespace(body: string): string | null {
  const tag = /<(?![?!])[^>]*>/.exec(body)?.[0] ?? "";
  const prefix = /^<([\w.-]+):/.exec(tag)?.[1];
  const attr = prefix ? `xmlns:${prefix}` : "xmlns";
  return new RegExp(`\\s${attr}\\s*=\\s*["']([^"']*)["']`).exec(tag)?.[1] ?? null;
}
