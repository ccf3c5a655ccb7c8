/**
 * TSO simulator (docs/fahrplan.md): plays the TSOs' side of
 * the `files` channel for the demo and the tests. It watches a folder the service hands schedule
 * documents to (the outbox), and answers each new ESS `ScheduleMessage` into the service's inbox:
 *
 * - a document it can read: an acknowledgement (ACK, reason A01), and after `cnfDelayMs` a
 *   confirmation report (CNF, reason A06) — or, for a control area listed in `mismatchAreas`, an
 *   anomaly report (ANO, reason A28 "counterparty time series differs");
 * - a document it cannot read, or one without time series: a rejecting ACK (A02) with the reason.
 *
 * Answers are written with a temporary name and renamed, as a real gateway does, so the service
 * never reads half a file. Polls every `pollMs` (default 200 ms); `close()` stops it.
 * @module
 */
import { XMLBuilder, XMLParser } from "fast-xml-parser";

/** A running TSO simulator. */
export interface TsoSimulator {
  /** Documents answered so far, by file name. */
  answered(): string[];
  close(): Promise<void>;
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@_" });
const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  format: true,
  suppressEmptyNode: true,
});
const v = (value: string | number) => ({ "@_v": String(value) });
const eic = (value: string) => ({ "@_v": value, "@_codingScheme": "A01" });

/**
 * Starts watching `outbox` and answering into `inbox`.
 * @param opts.cnfDelayMs time between the ACK and the CNF/ANO (default 0)
 * @param opts.mismatchAreas control-area EICs whose schedules get an ANO instead of a CNF
 */
export function startTsoSimulator(opts: {
  outbox: string;
  inbox: string;
  cnfDelayMs?: number;
  mismatchAreas?: string[];
  pollMs?: number;
}): TsoSimulator {
  const seen = new Set<string>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let busy = false;
  const write = async (name: string, root: Record<string, unknown>) => {
    await Deno.mkdir(opts.inbox, { recursive: true });
    const xml = builder.build({ "?xml": { "@_version": "1.0", "@_encoding": "UTF-8" }, ...root });
    const temp = `${opts.inbox}/.${name}.part`;
    await Deno.writeTextFile(temp, xml as string);
    await Deno.rename(temp, `${opts.inbox}/${name}`);
  };
  const answer = async (file: string) => {
    const text = await Deno.readTextFile(`${opts.outbox}/${file}`);
    let m: Record<string, { "@_v"?: string }> & { ScheduleTimeSeries?: unknown };
    try {
      m = parser.parse(text).ScheduleMessage;
      if (!m) throw new Error("not a ScheduleMessage");
    } catch (err) {
      m = {} as typeof m;
      void err;
    }
    const id = m.MessageIdentification?.["@_v"] ?? "unknown";
    const version = m.MessageVersion?.["@_v"] ?? "0";
    const tso = m.ReceiverIdentification?.["@_v"] ?? "10XDE-UNKNOWN--X";
    const sender = m.SenderIdentification?.["@_v"] ?? "unknown";
    const interval = m.ScheduleTimeInterval?.["@_v"] ?? "";
    const series = ([] as unknown[]).concat(m.ScheduleTimeSeries ?? []);
    const area = (series[0] as { InArea?: { "@_v"?: string } } | undefined)?.InArea?.["@_v"];
    const ok = id !== "unknown" && series.length > 0;
    const stamp = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    const header = (kind: string) => ({
      "@_DtdVersion": "2",
      "@_DtdRelease": "3",
      MessageIdentification: v(
        `${stamp.slice(0, 10).replaceAll("-", "")}-${tso}-${kind}-${seen.size}`,
      ),
      MessageDateTime: v(stamp),
      SenderIdentification: eic(tso),
      SenderRole: v("A04"),
      ReceiverIdentification: eic(sender),
      ReceiverRole: v("A08"),
    });
    const base = file.replace(/\.xml$/i, "");
    await write(`${base}_ACK_${stamp.replaceAll(":", "-")}.xml`, {
      AcknowledgementMessage: {
        ...header("ACK"),
        ReceivingMessageIdentification: v(id),
        ReceivingMessageVersion: v(version),
        Reason: ok
          ? { ReasonCode: v("A01"), ReasonText: v("Message fully accepted") }
          : { ReasonCode: v("A02"), ReasonText: v("the schedule could not be read") },
      },
    });
    if (!ok) return;
    const later = setTimeout(async () => {
      timers.delete(later);
      if (area && opts.mismatchAreas?.includes(area)) {
        await write(`${base}_ANO_${stamp.replaceAll(":", "-")}.xml`, {
          AnomalyReport: {
            ...header("ANO"),
            ScheduleTimeInterval: v(interval),
            TimeSeriesAnomaly: {
              SendersTimeSeriesIdentification: v("TS-1"),
              SendersTimeSeriesVersion: v(version),
              Reason: { ReasonCode: v("A28"), ReasonText: v("counterparty time series differs") },
            },
          },
        }).catch(() => {});
        return;
      }
      await write(`${base}_CNF_${stamp.replaceAll(":", "-")}.xml`, {
        ConfirmationReport: {
          ...header("CF"),
          MessageType: v("A07"),
          ScheduleTimeInterval: v(interval),
          ConfirmedMessageIdentification: v(id),
          ConfirmedMessageVersion: v(version),
          Reason: { ReasonCode: v("A06") },
        },
      }).catch(() => {});
    }, opts.cnfDelayMs ?? 0);
    timers.add(later);
  };
  const poll = async () => {
    if (busy) return;
    busy = true;
    try {
      for await (const e of Deno.readDir(opts.outbox)) {
        if (!e.isFile || !/_TPS_.*\.xml$/i.test(e.name) || seen.has(e.name)) continue;
        seen.add(e.name);
        await answer(e.name);
      }
    } catch {
      /* the outbox does not exist yet */
    } finally {
      busy = false;
    }
  };
  const interval = setInterval(poll, opts.pollMs ?? 200);
  return {
    answered: () => [...seen],
    async close() {
      clearInterval(interval);
      for (const t of timers) clearTimeout(t);
      while (busy) await new Promise((r) => setTimeout(r, 10));
    },
  };
}
