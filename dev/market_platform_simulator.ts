/**
 * Market-platform simulator (docs/pipeline.md, "Submit"): a real HTTPS server with a self-signed certificate made
 * at start, implementing the submission contract the bridge uses:
 *
 * - `POST /schedules` with the key raw in `authorization` (else 401) and an `idempotency-key`
 *   (else 400). A new key → 201 `{submission_id, received_at, delivery_day, aggregate_version}`;
 *   a key seen before → 200 with the same receipt, nothing stored twice. A malformed body → 400.
 * - `POST /schedules` with `content-type: application/xml`: one ESS `ScheduleMessage` or CIM
 *   `Schedule_MarketDocument`, same key and idempotency rules → 201 (a CIM document that ENTSO-E's
 *   schema refuses is taken, then `rejected` with A02 and the validator's findings, as a TSO does)
 *   `{submission_id, received_at, message_identification, message_version, control_area, state}`.
 * - `GET /schedules/{submission_id}` (same key) → what the TSO made of that document:
 *   `{submission_id, state, reason_code, reason_text, updated_at}`, 404 for an unknown id. The
 *   simulator plays the TSO: a document is `received`; the first status request finds it
 *   `acknowledged` (A01) — or `rejected` (A02, with the reason) when it has no identification or
 *   no time series; once `cnfDelayMs` have passed since it arrived, the next request finds it
 *   `confirmed` (A06), or `anomaly` (A28) for a control area in `mismatchAreas`. `rejected`,
 *   `confirmed` and `anomaly` are final. `setState` overrides it. With the service's `clock` the
 *   TSO's rules of docs/intraday.md apply (`./tso_rules.ts`).
 * - `GET /schedules` (same key) → every stored submission, for tests and the demo.
 *
 * It can be told to fail (`failNext(status, body, times)`) or to delay answers (`delay(ms)`).
 * Standalone: `deno run -A dev/market_platform_simulator.ts` prints URL, key and CA file.
 * @module
 */
import { XMLParser } from "fast-xml-parser";
import { checkCim, describeProblems } from "../lib/fahrplan/cim_schema.ts";
import { confirmFrom, judge, receivedSchedule, type TsoMemory } from "./tso_rules.ts";
import { realSleep } from "../lib/clock.ts";

/** One stored submission. */
export interface SimulatedSubmission {
  submission_id: string;
  received_at: string;
  idempotency_key: string;
  body: {
    delivery_day: string;
    aggregate_version: number;
    schedules: { control_area: string; quantities: number[] }[];
    [k: string]: unknown;
  };
}

/** A schedule document received as XML, and what the simulated TSO made of it. */
export interface SimulatedDocument {
  submission_id: string;
  received_at: string;
  idempotency_key: string;
  format: "ess" | "cim";
  message_identification: string | null;
  message_version: number | null;
  /** The control area (EIC) of its first time series. */
  control_area: string | null;
  /** Time series in the document. */
  series: number;
  xml: string;
  state: "received" | "acknowledged" | "rejected" | "confirmed" | "anomaly";
  reason_code: string | null;
  reason_text: string | null;
  updated_at: string;
  /** With a clock: the TSO's rejection in words (`null`: accepted), and when it may confirm. */
  verdict?: string | null;
  confirm_from?: number;
}

/** A running simulator. */
export interface Simulator {
  /** `https://127.0.0.1:<port>` */
  url: string;
  /** PEM of the self-signed certificate (trust it with `Deno.createHttpClient({caCerts})`). */
  caCert: string;
  apiKey: string;
  /** Stored JSON submissions, in arrival order. */
  submissions(): SimulatedSubmission[];
  /** Stored XML schedule documents, in arrival order. */
  documents(): SimulatedDocument[];
  /** Number of `GET /schedules/{id}` requests received. */
  statusRequests(): number;
  /** Sets what the TSO made of a document (as the next status request will find it). */
  setState(
    id: string,
    state: SimulatedDocument["state"],
    reasonCode?: string | null,
    reasonText?: string | null,
  ): void;
  /** Number of POST requests received (including failed and repeated ones). */
  requests(): number;
  /** The next `times` POSTs answer `status` with `body`. */
  failNext(status: number, body: string, times?: number): void;
  /** Every answer waits `ms` first. */
  delay(ms: number): void;
  close(): Promise<void>;
}

/**
 * Starts the simulator on 127.0.0.1.
 * @param opts.apiKey expected `authorization` value (default: random)
 * @param opts.port default 0 (ephemeral)
 * @param opts.cnfDelayMs time after a document arrived from which it is confirmed (ms, real time,
 *   default 0)
 * @param opts.mismatchAreas control-area EICs whose documents get an anomaly instead
 * @param opts.clock the service's clock: with it the TSO's rules of `./tso_rules.ts` apply (a
 *   version not above the last one, or changing a quarter-hour inside `leadMinutes` (15) at
 *   receipt, is rejected; one received between `tsoDeadlineLocalTime` (14:30) and 18:00 the day
 *   before is confirmed only from 18:00)
 */
export async function startSimulator(
  opts: {
    apiKey?: string;
    port?: number;
    cnfDelayMs?: number;
    mismatchAreas?: string[];
    clock?: { now(): number };
    leadMinutes?: number;
    tsoDeadlineLocalTime?: string;
  } = {},
): Promise<Simulator> {
  const memory: TsoMemory = new Map();
  const apiKey = opts.apiKey ?? `sim-${crypto.randomUUID()}`;
  // ECDSA P-256: made in milliseconds, where an RSA-2048 key took most of a second per start.
  // Imported here, not at the top: loading it costs ~0.2 s of CPU, and test files import this
  // module for its types and helpers without starting a simulator.
  const { default: selfsigned } = await import("selfsigned");
  const pems = await selfsigned.generate([{ name: "commonName", value: "127.0.0.1" }], {
    keyType: "ec",
    notAfterDate: new Date(Date.now() + 7 * 86_400_000),
    algorithm: "sha256",
    extensions: [{
      name: "subjectAltName",
      altNames: [{ type: 7, ip: "127.0.0.1" }, { type: 2, value: "localhost" }],
    }],
  });
  const stored: SimulatedSubmission[] = [];
  const byKey = new Map<string, SimulatedSubmission>();
  const docs: SimulatedDocument[] = [];
  const docsByKey = new Map<string, SimulatedDocument>();
  const docsById = new Map<string, SimulatedDocument>();
  let statusRequests = 0;
  let failures: { status: number; body: string; times: number } | undefined;
  let delayMs = 0;
  let requests = 0;
  const ac = new AbortController();
  const { promise, resolve } = Promise.withResolvers<number>();
  const json = (status: number, body: unknown) => Response.json(body, { status });

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: opts.port ?? 0,
    cert: pems.cert,
    key: pems.private,
    signal: ac.signal,
    onListen: ({ port }) => resolve(port),
  }, async (req) => {
    const path = new URL(req.url).pathname;
    if (delayMs) await realSleep(delayMs, AbortSignal.any([req.signal, ac.signal]));
    if (req.headers.get("authorization") !== apiKey) {
      return json(401, {
        error: "unauthorized",
        message: "authorization header does not carry the platform key",
      });
    }
    if (path === "/schedules" && req.method === "GET") {
      return json(200, { submissions: stored, documents: docs });
    }
    const statusOf = /^\/schedules\/([^/]+)$/.exec(path);
    if (statusOf && req.method === "GET") {
      statusRequests++;
      const doc = docsById.get(decodeURIComponent(statusOf[1]));
      if (!doc) return json(404, { error: "not_found", message: "no such submission" });
      advance(doc, { ...opts, now: opts.clock?.now() });
      return json(200, {
        submission_id: doc.submission_id,
        state: doc.state,
        reason_code: doc.reason_code,
        reason_text: doc.reason_text,
        updated_at: doc.updated_at,
      });
    }
    if (path !== "/schedules" || req.method !== "POST") return json(404, { error: "not_found" });
    requests++;
    const text = await req.text();
    if (failures && failures.times > 0) {
      failures.times--;
      return new Response(failures.body, {
        status: failures.status,
        headers: { "content-type": "text/plain" },
      });
    }
    const key = req.headers.get("idempotency-key");
    if (!key) return json(400, { error: "missing_idempotency_key" });
    if (req.headers.get("content-type")?.startsWith("application/xml")) {
      const prior = docsByKey.get(key);
      if (prior) return json(200, docReceipt(prior));
      const doc = readDocument(text, key);
      if (!doc) return json(400, { error: "invalid_body", message: "not a schedule document" });
      // Like a TSO: a CIM document ENTSO-E's schema refuses is rejected (A02) with its findings.
      const check = doc.format === "cim" ? checkCim(text) : null;
      if (check?.problems.length) {
        doc.verdict = `the document does not validate ${describeProblems(check)}`.slice(0, 512);
      }
      const rs = opts.clock && !doc.verdict ? receivedSchedule(xmlParser.parse(text)) : null;
      if (rs && opts.clock) {
        const now = opts.clock.now();
        doc.verdict = judge(memory, rs, now, opts.leadMinutes ?? 15);
        doc.confirm_from = confirmFrom(rs.start, now, opts.tsoDeadlineLocalTime);
      }
      docs.push(doc);
      docsByKey.set(key, doc);
      docsById.set(doc.submission_id, doc);
      return json(201, docReceipt(doc));
    }
    const prior = byKey.get(key);
    if (prior) return json(200, receipt(prior));
    let body: SimulatedSubmission["body"];
    try {
      body = JSON.parse(text);
      if (typeof body.delivery_day !== "string" || !Array.isArray(body.schedules)) {
        throw new Error();
      }
    } catch {
      return json(400, { error: "invalid_body", message: "expected delivery_day and schedules" });
    }
    const sub: SimulatedSubmission = {
      submission_id: crypto.randomUUID(),
      received_at: new Date().toISOString(),
      idempotency_key: key,
      body,
    };
    stored.push(sub);
    byKey.set(key, sub);
    return json(201, receipt(sub));
  });
  const port = await promise;
  return {
    url: `https://127.0.0.1:${port}`,
    caCert: pems.cert,
    apiKey,
    submissions: () => [...stored],
    documents: () => docs.map((d) => ({ ...d })),
    statusRequests: () => statusRequests,
    setState(id, state, reasonCode = null, reasonText = null) {
      const doc = docsById.get(id);
      if (!doc) throw new Error(`no submission ${id}`);
      Object.assign(doc, {
        state,
        reason_code: reasonCode,
        reason_text: reasonText,
        updated_at: new Date().toISOString(),
      });
    },
    requests: () => requests,
    failNext(status, body, times = 1) {
      failures = { status, body, times };
    },
    delay(ms) {
      delayMs = ms;
    },
    async close() {
      ac.abort();
      await server.finished;
    },
  };
}

const xmlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  removeNSPrefix: true,
});

/** Reads an ESS or CIM schedule document; `null` when it is neither. */
function readDocument(text: string, key: string): SimulatedDocument | null {
  // deno-lint-ignore no-explicit-any
  let root: any;
  try {
    root = xmlParser.parse(text);
  } catch {
    return null;
  }
  const ess = root?.ScheduleMessage;
  const cim = root?.Schedule_MarketDocument;
  if (!ess && !cim) return null;
  const series = ([] as unknown[]).concat(
    ess ? ess.ScheduleTimeSeries ?? [] : cim.TimeSeries ?? [],
  );
  // deno-lint-ignore no-explicit-any
  const first = series[0] as any;
  const text_ = (v: unknown) =>
    typeof v === "object" && v ? (v as { "#text"?: unknown })["#text"] : v;
  const id = ess ? ess.MessageIdentification?.["@_v"] : cim.mRID;
  const version = ess ? ess.MessageVersion?.["@_v"] : cim.revisionNumber;
  const area = ess ? first?.InArea?.["@_v"] : text_(first?.["in_Domain.mRID"]);
  const now = new Date().toISOString();
  return {
    submission_id: crypto.randomUUID(),
    received_at: now,
    idempotency_key: key,
    format: ess ? "ess" : "cim",
    message_identification: id ? String(id) : null,
    message_version: version === undefined ? null : Number(version),
    control_area: area ? String(area) : null,
    series: series.length,
    xml: text,
    state: "received",
    reason_code: null,
    reason_text: null,
    updated_at: now,
  };
}

/** The simulated TSO's next step for a document asked about (see the module comment). */
function advance(
  doc: SimulatedDocument,
  opts: { cnfDelayMs?: number; mismatchAreas?: string[]; now?: number },
) {
  const set = (state: SimulatedDocument["state"], code: string, text: string | null) =>
    Object.assign(doc, {
      state,
      reason_code: code,
      reason_text: text,
      updated_at: new Date().toISOString(),
    });
  if (doc.state === "received") {
    if (!doc.message_identification || doc.series === 0) {
      set("rejected", "A02", "the schedule has no identification or no time series");
    } else if (doc.verdict) set("rejected", "A02", doc.verdict);
    else set("acknowledged", "A01", "Message fully accepted");
    return;
  }
  if (doc.state !== "acknowledged") return;
  if (opts.now !== undefined && opts.now < (doc.confirm_from ?? 0)) return;
  if (Date.now() - Date.parse(doc.received_at) < (opts.cnfDelayMs ?? 0)) return;
  if (doc.control_area && opts.mismatchAreas?.includes(doc.control_area)) {
    set("anomaly", "A28", "counterparty time series differs");
  } else set("confirmed", "A06", null);
}

function docReceipt(d: SimulatedDocument) {
  return {
    submission_id: d.submission_id,
    received_at: d.received_at,
    message_identification: d.message_identification,
    message_version: d.message_version,
    control_area: d.control_area,
    state: d.state,
  };
}

function receipt(s: SimulatedSubmission) {
  return {
    submission_id: s.submission_id,
    received_at: s.received_at,
    delivery_day: s.body.delivery_day,
    aggregate_version: s.body.aggregate_version,
  };
}

if (import.meta.main) {
  const sim = await startSimulator({ port: Number(Deno.env.get("PORT") ?? 0) });
  const caFile = await Deno.makeTempFile({ prefix: "simulator-ca-", suffix: ".pem" });
  await Deno.writeTextFile(caFile, sim.caCert);
  console.log(`market platform simulator on ${sim.url}\n  key: ${sim.apiKey}\n  CA:  ${caFile}`);
}
