/**
 * TSO simulator (docs/fahrplan.md, docs/intraday.md): plays the TSOs' side of the `files` channel
 * for the demo and the tests. It watches a folder the service hands schedule documents to (the
 * outbox), and answers each new ESS `ScheduleMessage` into the service's inbox, in file-name order
 * (the version is part of the name):
 *
 * - a document it can read: an acknowledgement (ACK, reason A01), and after `cnfDelayMs` a
 *   confirmation report (CNF, reason A06) — or, for a control area listed in `mismatchAreas`, an
 *   anomaly report (ANO, reason A28 "counterparty time series differs");
 * - a document it cannot read, or one without time series: a rejecting ACK (A02) with the reason;
 * - a version not above the last one it received for the same message identification: A02;
 * - with a `clock` (the service's): a version that changes a quarter-hour starting within
 *   `leadMinutes` of its receipt, compared with the last version it accepted (0 where none), is
 *   rejected (A02, naming the quarter-hour: StromNZV § 5); a version received between the TSO
 *   deadline (`tsoDeadlineLocalTime`, default 14:30) and 18:00 Berlin the day before delivery is
 *   acknowledged at once and confirmed only from 18:00, when the TSOs process the next day.
 *
 * Answers are written with a temporary name and renamed, as a real gateway does, so the service
 * never reads half a file. Polls every `pollMs` (default 200 ms; `pump()` runs one poll now, for
 * tests on a fake clock); `close()` stops it.
 * @module
 */
import { XMLBuilder, XMLParser } from "fast-xml-parser";
import { confirmFrom, judge, receivedSchedule, type TsoMemory } from "./tso_rules.ts";

/** A running TSO simulator. */
export interface TsoSimulator {
  /** Documents answered so far, by file name. */
  answered(): string[];
  /** One poll now: answers new documents and writes the confirmations that are due. */
  pump(): Promise<void>;
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

type Attr = { "@_v"?: string };

/**
 * Starts watching `outbox` and answering into `inbox`.
 * @param opts.cnfDelayMs time between the ACK and the CNF/ANO (default 0)
 * @param opts.mismatchAreas control-area EICs whose schedules get an ANO instead of a CNF
 * @param opts.clock the service's clock: with it the lead-time and 18:00 rules apply
 * @param opts.leadMinutes lead time of an intraday version (default 15)
 * @param opts.tsoDeadlineLocalTime the day-ahead deadline, Berlin, day before (default 14:30)
 * @param opts.pollMs polling period (default 200 ms; 0 = only {@link TsoSimulator.pump})
 * @param opts.rejectIf a test's own rejection of a file, with the reason
 */
export function startTsoSimulator(opts: {
  outbox: string;
  inbox: string;
  cnfDelayMs?: number;
  mismatchAreas?: string[];
  pollMs?: number;
  clock?: { now(): number };
  leadMinutes?: number;
  tsoDeadlineLocalTime?: string;
  /** A test's own rejection: a reason for a file it wants rejected (A02), else `null`. */
  rejectIf?: (file: string) => string | null;
}): TsoSimulator {
  const seen = new Set<string>();
  const memory: TsoMemory = new Map();
  const due: { at: number; write: () => Promise<void> }[] = [];
  const now = () => opts.clock?.now() ?? Date.now();
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
    let root: unknown = null;
    let m: Record<string, Attr> & { ScheduleTimeSeries?: unknown };
    try {
      root = parser.parse(text);
      m = (root as { ScheduleMessage?: typeof m }).ScheduleMessage!;
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
    const area = (series[0] as { InArea?: Attr } | undefined)?.InArea?.["@_v"];
    const doc = id !== "unknown" && series.length > 0 ? receivedSchedule(root) : null;
    const why = doc
      ? opts.rejectIf?.(file) ??
        judge(memory, doc, opts.clock ? now() : null, opts.leadMinutes ?? 15)
      : "the schedule could not be read";
    const stamp = new Date(now()).toISOString().replace(/\.\d+Z$/, "Z");
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
        Reason: why
          ? { ReasonCode: v("A02"), ReasonText: v(why) }
          : { ReasonCode: v("A01"), ReasonText: v("Message fully accepted") },
      },
    });
    if (why) return;
    // Between the TSO deadline and 18:00 the day before: confirmed only from 18:00.
    let at = now() + (opts.cnfDelayMs ?? 0);
    if (opts.clock) at = Math.max(at, confirmFrom(doc!.start, now(), opts.tsoDeadlineLocalTime));
    due.push({
      at,
      write: async () => {
        const cnfStamp = new Date(now()).toISOString().replace(/\.\d+Z$/, "Z");
        if (area && opts.mismatchAreas?.includes(area)) {
          await write(`${base}_ANO_${cnfStamp.replaceAll(":", "-")}.xml`, {
            AnomalyReport: {
              ...header("ANO"),
              ScheduleTimeInterval: v(interval),
              TimeSeriesAnomaly: {
                SendersTimeSeriesIdentification: v("TS-1"),
                SendersTimeSeriesVersion: v(version),
                Reason: { ReasonCode: v("A28"), ReasonText: v("counterparty time series differs") },
              },
            },
          });
          return;
        }
        await write(`${base}_CNF_${cnfStamp.replaceAll(":", "-")}.xml`, {
          ConfirmationReport: {
            ...header("CF"),
            MessageType: v("A07"),
            ScheduleTimeInterval: v(interval),
            ConfirmedMessageIdentification: v(id),
            ConfirmedMessageVersion: v(version),
            Reason: { ReasonCode: v("A06") },
          },
        });
      },
    });
  };
  const poll = async () => {
    if (busy) return;
    busy = true;
    try {
      const names: string[] = [];
      try {
        for await (const e of Deno.readDir(opts.outbox)) {
          if (e.isFile && /_TPS_.*\.xml$/i.test(e.name) && !seen.has(e.name)) names.push(e.name);
        }
      } catch {
        /* the outbox does not exist yet */
      }
      for (const name of names.sort()) {
        seen.add(name);
        await answer(name);
      }
      for (const d of [...due]) {
        if (d.at > now()) continue;
        due.splice(due.indexOf(d), 1);
        await d.write().catch(() => {});
      }
    } finally {
      busy = false;
    }
  };
  const timer = (opts.pollMs ?? 200) > 0 ? setInterval(poll, opts.pollMs ?? 200) : undefined;
  return {
    answered: () => [...seen],
    async pump() {
      while (busy) await new Promise((r) => setTimeout(r, 5));
      await poll();
    },
    async close() {
      clearInterval(timer);
      while (busy) await new Promise((r) => setTimeout(r, 10));
    },
  };
}
