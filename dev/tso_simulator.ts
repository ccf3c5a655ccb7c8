/**
 * TSO simulator (docs/fahrplan.md, docs/intraday.md): plays the TSOs' side of the `files` channel
 * for the demo and the tests. It watches a folder the service hands schedule documents to (the
 * outbox), and answers each new schedule — ESS `ScheduleMessage` or CIM `Schedule_MarketDocument`,
 * answered in its own format (`./tso_documents.ts`) — into the service's inbox, in file-name order
 * (the version is part of the name). Like a TSO it checks every CIM document it receives against
 * ENTSO-E's schema of its namespace (lib/fahrplan/cim_schema.ts) and answers a schema-invalid one
 * with a negative acknowledgement (A02) quoting the validator:
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
 *   acknowledged at once and confirmed only from 18:00, when the TSOs process the next day;
 * - a control area in `silentAreas` gets no answer at all (a TSO whose answers are lost) until a
 *   status request arrives;
 * - a status request (`_SRQ_` file, ESS `StatusRequest` or CIM `StatusRequest_MarketDocument`)
 *   is answered with the TSO's current answer for the requested day: the CNF (or ANO) of the last
 *   version it accepted, or the negative ACK of the last one it rejected.
 *
 * Answers are written with a temporary name and renamed, as a real gateway does, so the service
 * never reads half a file. Polls every `pollMs` (default 200 ms; `pump()` runs one poll now, for
 * tests on a fake clock); `close()` stops it.
 * @module
 */
import { XMLParser } from "fast-xml-parser";
import { checkCim, describeProblems } from "../lib/fahrplan/cim_schema.ts";
import { confirmFrom, judge, receivedSchedule, type TsoMemory } from "./tso_rules.ts";
import { type Answered, type AnswerKind, answerXml } from "./tso_documents.ts";

/** A running TSO simulator. */
export interface TsoSimulator {
  /** Documents answered so far, by file name. */
  answered(): string[];
  /** Status requests received so far, by file name. */
  statusRequests(): string[];
  /** One poll now: answers new documents and writes the confirmations that are due. */
  pump(): Promise<void>;
  close(): Promise<void>;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  removeNSPrefix: true,
  processEntities: false,
});

// deno-lint-ignore no-explicit-any
type Node = any;
const text = (n: Node): string | undefined =>
  n === undefined || n === null ? undefined : typeof n === "object" ? n["#text"] : String(n);
const attr = (n: Node): string | undefined => n?.["@_v"];

/** What the simulator reads of a schedule (ESS or CIM); fields are `""` when missing. */
function readSchedule(root: Node, format: "ess" | "cim"): Omit<Answered, "format"> {
  if (format === "ess") {
    const m = root.ScheduleMessage ?? {};
    const series: Node[] = [].concat(m.ScheduleTimeSeries ?? []);
    return {
      id: attr(m.MessageIdentification) ?? "unknown",
      version: attr(m.MessageVersion) ?? "0",
      tso: attr(m.ReceiverIdentification) ?? "10XDE-UNKNOWN--X",
      sender: attr(m.SenderIdentification) ?? "unknown",
      interval: attr(m.ScheduleTimeInterval) ?? "",
      area: attr(series[0]?.InArea) ?? null,
    };
  }
  const d = root.Schedule_MarketDocument ?? {};
  const period = d["schedule_Time_Period.timeInterval"];
  return {
    id: text(d.mRID) ?? "unknown",
    version: text(d.revisionNumber) ?? "0",
    tso: text(d["receiver_MarketParticipant.mRID"]) ?? "10XDE-UNKNOWN--X",
    sender: text(d["sender_MarketParticipant.mRID"]) ?? "unknown",
    interval: period ? `${text(period.start)}/${text(period.end)}` : "",
    area: text(d["domain.mRID"]) ?? null,
    createdAt: text(d.createdDateTime),
  };
}

/** The TSO and day interval a status request asks about, or `null` when it is not one. */
function readStatusRequest(root: Node): { tso: string; interval: string } | null {
  const ess = root.StatusRequest;
  if (ess) {
    const tso = attr(ess.ReceiverIdentification);
    const interval = attr(ess.RequestedTimeInterval);
    return tso && interval ? { tso, interval } : null;
  }
  const cim = root.StatusRequest_MarketDocument;
  if (!cim) return null;
  const parts: Node[] = [].concat(cim.AttributeInstanceComponent ?? []);
  const interval = parts.find((p) => text(p.attribute) === "schedule_Time_Period.timeInterval");
  const tso = text(cim["receiver_MarketParticipant.mRID"]);
  return tso && interval ? { tso, interval: text(interval.attributeValue) ?? "" } : null;
}

/**
 * Starts watching `outbox` and answering into `inbox`.
 * @param opts.cnfDelayMs time between the ACK and the CNF/ANO (default 0)
 * @param opts.mismatchAreas control-area EICs whose schedules get an ANO instead of a CNF
 * @param opts.silentAreas control-area EICs whose schedules get no answer until a status request
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
  silentAreas?: string[];
  pollMs?: number;
  clock?: { now(): number };
  leadMinutes?: number;
  tsoDeadlineLocalTime?: string;
  /** A test's own rejection: a reason for a file it wants rejected (A02), else `null`. */
  rejectIf?: (file: string) => string | null;
}): TsoSimulator {
  const seen = new Set<string>();
  const requests: string[] = [];
  const srqSeen = new Set<string>();
  const memory: TsoMemory = new Map();
  /** Per TSO and day interval: the last schedule received and what the TSO made of it. */
  const current = new Map<string, { base: string; doc: Answered; why: string | null }>();
  const due: { at: number; write: () => Promise<void> }[] = [];
  const now = () => opts.clock?.now() ?? Date.now();
  const stampOf = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
  let serial = 0;
  let busy = false;
  const write = async (name: string, xml: string) => {
    await Deno.mkdir(opts.inbox, { recursive: true });
    const temp = `${opts.inbox}/.${name}.part`;
    await Deno.writeTextFile(temp, xml);
    await Deno.rename(temp, `${opts.inbox}/${name}`);
  };
  const send = async (base: string, doc: Answered, answer: AnswerKind) => {
    const stamp = stampOf(now());
    const kind = answer.kind.toUpperCase();
    const xml = answerXml(doc, answer, stamp, ++serial);
    await write(`${base}_${kind}_${stamp.replaceAll(":", "-")}.xml`, xml);
  };
  const final = (doc: Answered): AnswerKind =>
    doc.area && opts.mismatchAreas?.includes(doc.area) ? { kind: "ano" } : { kind: "cnf" };

  const answer = async (file: string) => {
    const body = await Deno.readTextFile(`${opts.outbox}/${file}`);
    const format = /<(\w+:)?Schedule_MarketDocument[\s>]/.test(body) ? "cim" : "ess";
    let root: Node = {};
    let unreadable: string | null = null;
    if (format === "cim") {
      const check = checkCim(body);
      if (check.problems.length) {
        unreadable = `the document does not validate ${describeProblems(check)}`;
      }
    }
    try {
      root = parser.parse(body);
    } catch (err) {
      unreadable ??= `the schedule could not be read: ${(err as Error).message}`;
    }
    const doc: Answered = { format, ...readSchedule(root, format) };
    const rules = unreadable === null && doc.id !== "unknown" ? receivedSchedule(root) : null;
    const hasSeries = (rules?.qty.length ?? 0) > 0;
    const why = unreadable ??
      (!hasSeries ? "the schedule could not be read" : opts.rejectIf?.(file) ??
        judge(memory, rules!, opts.clock ? now() : null, opts.leadMinutes ?? 15));
    const base = file.replace(/\.xml$/i, "");
    current.set(`${doc.tso} ${doc.interval}`, { base, doc, why });
    if (doc.area && opts.silentAreas?.includes(doc.area)) return;
    await send(
      base,
      doc,
      why ? { kind: "ack", accepted: false, why } : { kind: "ack", accepted: true },
    );
    if (why) return;
    // Between the TSO deadline and 18:00 the day before: confirmed only from 18:00.
    let at = now() + (opts.cnfDelayMs ?? 0);
    if (opts.clock) at = Math.max(at, confirmFrom(rules!.start, now(), opts.tsoDeadlineLocalTime));
    due.push({ at, write: () => send(base, doc, final(doc)) });
  };

  const statusRequest = async (file: string) => {
    requests.push(file);
    const body = await Deno.readTextFile(`${opts.outbox}/${file}`);
    if (/<(\w+:)?StatusRequest_MarketDocument[\s>]/.test(body) && checkCim(body).problems.length) {
      return; // a TSO ignores a request it cannot read
    }
    let asked: { tso: string; interval: string } | null = null;
    try {
      asked = readStatusRequest(parser.parse(body.replace(/^\uFEFF/, "")));
    } catch {
      asked = null;
    }
    const last = asked ? current.get(`${asked.tso} ${asked.interval}`) : undefined;
    if (!last) return;
    if (last.why) {
      await send(last.base, last.doc, { kind: "ack", accepted: false, why: last.why });
    } else await send(last.base, last.doc, final(last.doc));
  };

  const poll = async () => {
    if (busy) return;
    busy = true;
    try {
      const names: string[] = [];
      try {
        for await (const e of Deno.readDir(opts.outbox)) {
          if (!e.isFile || !/_(TPS|SRQ)_.*\.xml$/i.test(e.name)) continue;
          if (/_SRQ_/i.test(e.name)) {
            // A request has no version in its BDEW name: a newer one replaces the file.
            const key = `${e.name}@${
              (await Deno.stat(`${opts.outbox}/${e.name}`)).mtime?.getTime()
            }`;
            if (!srqSeen.has(key)) srqSeen.add(key), names.push(e.name);
          } else if (!seen.has(e.name)) names.push(e.name);
        }
      } catch {
        /* the outbox does not exist yet */
      }
      for (const name of names.sort()) {
        if (/_SRQ_/i.test(name)) await statusRequest(name);
        else seen.add(name), await answer(name);
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
    statusRequests: () => [...requests],
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
