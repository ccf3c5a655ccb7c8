/**
 * TSO answer files for tests (docs/fahrplan.md): an ESS acknowledgement (A01 accepted, A02
 * rejected with a reason), a confirmation report and an anomaly report about the document of
 * {@link PARTIES} for one delivery day, in the structure of the real ESS samples.
 * @module
 */
import assert from "node:assert/strict";
import { messageIdentification } from "../../lib/fahrplan/document.ts";
import { call } from "./app.ts";
import { PARTIES } from "./fahrplan.ts";
import { proc } from "./pipeline.ts";

/** The TSOs' EICs by the portfolio's area names. */
export const TSO = {
  amprion: "10XDE-RWENET---W",
  tennet: "10XDE-EON-NETZ-C",
  hertz: "10XDE-VE-TRANSMK",
  transnet: "10XDE-ENBW--TNGX",
} as const;

/** `YYYY-MM-DDT..Z/..Z` of a 24-hour winter day (CET). */
const interval = (day: string) => {
  const start = new Date(Date.parse(`${day}T00:00:00+01:00`));
  const end = new Date(start.getTime() + 86_400_000);
  const z = (d: Date) => d.toISOString().slice(0, 16) + "Z";
  return `${z(start)}/${z(end)}`;
};

/** Acknowledgement of message `version`; `A02` rejects it with `text`. */
export const ackFile = (
  day: string,
  tso: string,
  version: number,
  code: "A01" | "A02",
  text: string,
) =>
  `<?xml version="1.0" encoding="UTF-8"?>
<AcknowledgementMessage DtdVersion="2" DtdRelease="3">
  <MessageIdentification v="ack-${tso}-${version}"/>
  <MessageDateTime v="2026-11-22T08:10:00Z"/>
  <SenderIdentification v="${tso}" codingScheme="A01"/>
  <SenderRole v="A04"/>
  <ReceiverIdentification v="${PARTIES.sender}" codingScheme="A01"/>
  <ReceiverRole v="A08"/>
  <ReceivingMessageIdentification v="${messageIdentification(day, PARTIES.sender, tso)}"/>
  <ReceivingMessageVersion v="${version}"/>
  <Reason><ReasonCode v="${code}"/><ReasonText v="${text}"/></Reason>
</AcknowledgementMessage>`;

/** Confirmation of message `version`. */
export const cnfFile = (day: string, tso: string, version: number) =>
  `<?xml version="1.0" encoding="UTF-8"?>
<ConfirmationReport DtdVersion="2" DtdRelease="3">
  <MessageIdentification v="cnf-${tso}-${version}"/>
  <MessageType v="A07"/>
  <MessageDateTime v="2026-11-22T14:00:00Z"/>
  <SenderIdentification v="${tso}" codingScheme="A01"/>
  <SenderRole v="A04"/>
  <ReceiverIdentification v="${PARTIES.sender}" codingScheme="A01"/>
  <ReceiverRole v="A08"/>
  <ScheduleTimeInterval v="${interval(day)}"/>
  <ConfirmedMessageIdentification v="${messageIdentification(day, PARTIES.sender, tso)}"/>
  <ConfirmedMessageVersion v="${version}"/>
  <Reason><ReasonCode v="A06"/></Reason>
</ConfirmationReport>`;

/** Anomaly report with the reason `text`. */
export const anoFile = (day: string, tso: string, text: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>
<AnomalyReport DtdVersion="2" DtdRelease="3">
  <MessageIdentification v="ano-${tso}"/>
  <MessageDateTime v="2026-11-22T14:05:00Z"/>
  <SenderIdentification v="${tso}" codingScheme="A01"/>
  <SenderRole v="A04"/>
  <ReceiverIdentification v="${PARTIES.sender}" codingScheme="A01"/>
  <ReceiverRole v="A08"/>
  <ScheduleTimeInterval v="${interval(day)}"/>
  <TimeSeriesAnomaly>
    <SendersTimeSeriesIdentification v="TS-1"/>
    <SendersTimeSeriesVersion v="1"/>
    <InParty v="${PARTIES.balancingGroup}" codingScheme="A01"/>
    <OutParty v="${PARTIES.counterparty}" codingScheme="A01"/>
    <Reason><ReasonCode v="A28"/><ReasonText v="${text}"/></Reason>
  </TimeSeriesAnomaly>
</AnomalyReport>`;

/** A day's schedule entry as `GET /v1/console/delivery-days` lists it (the fields tests read). */
export interface ScheduleEntry {
  control_area: string;
  tso_status: string;
  version: number;
  reason_code?: string | null;
  reason_text: string | null;
}

/** The schedules of `day` in the console's overview, by control area. */
export async function schedulesOf(
  url: string,
  day: string,
): Promise<Record<string, ScheduleEntry>> {
  const r = await call(`${url}/v1/console/delivery-days`, { headers: proc });
  const d = (r.body as { delivery_days: { delivery_day: string; schedules: ScheduleEntry[] }[] })
    .delivery_days.find((x) => x.delivery_day === day)!;
  return Object.fromEntries(d.schedules.map((s) => [s.control_area, s]));
}

/** The file names in `dir`, sorted; `[]` when it does not exist (an inbox's processed/, rejected/). */
export async function fileNames(dir: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) if (e.isFile) out.push(e.name);
  } catch { /* missing */ }
  return out.sort();
}

/**
 * `POST /v1/schedule-responses/import` with the process key: imports the TSO's answers waiting
 * in the inbox (asserting 200) and returns the files and what became of each.
 */
export async function importAnswers(
  url: string,
): Promise<{ files: { file: string; outcome: string }[] }> {
  const imp = await call(`${url}/v1/schedule-responses/import`, { method: "POST", headers: proc });
  assert.equal(imp.status, 200, JSON.stringify(imp.body));
  return imp.body as { files: { file: string; outcome: string }[] };
}
