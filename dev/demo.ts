/**
 * `deno task demo` — the main job end to end on embedded defaults:
 *
 * 1. starts the market-platform simulator (HTTPS, self-signed certificate made now);
 * 2. starts the service on a fresh embedded KV under `./data/demo-<time>/`, with freshly
 *    generated process and external keys (printed once);
 * 3. registers a portfolio of market locations across the four German control areas with BDEW
 *    profiles, plus PV parks whose customer forecast arrives as CSV;
 * 4. starts the orchestrator and runs its first pass at once (the cron keeps ticking every
 *    minute), driving the next delivery day whose gate closure is still ahead through
 *    aggregated → published (local outbox) → submitted (simulator);
 * 5. once the next day's schedules are confirmed, updates today's PV forecasts and hands today's
 *    intraday version to the TSOs (`dev/demo_intraday.ts`): "today: v2 sent 20:13, frozen before
 *    20:30 Berlin, 4 of 4 confirmed";
 * 6. gives one metered location the real OpenSTEF history with its weather (`dev/demo_learned.ts`):
 *    the pass puts its learned forecast into the schedule, and the demo prints its last-28-days
 *    MAE beside the "7 days before" baseline: "learned forecast for 41000000401 (…): MAE 28 days
 *    0.12 MW vs 7 days before 0.20 MW …";
 * 7. settles yesterday (`dev/demo_settlement.ts`): yesterday's schedules, the metering
 *    simulator's MSCONS and a reBAP file in the actuals inbox, one pass imports them; the last
 *    line reads "yesterday: 3.2 MWh short, 1.1 MWh long, imbalance cost 412.50 EUR (day-ahead
 *    only: 1,030.00 EUR)";
 * 8. prints the console URL, the keys and where the CSV landed, and keeps serving.
 *
 * Environment: `PORT` (default 8000; 0 = any free port), `DEMO_LOCATIONS` (default 400; up to
 * 100,000 — registration and the parks' forecasts go in batches under the API's limit of 500),
 * `SIMULATOR_PORT` (default: any free port), `DEMO_DATA_DIR` (default `./data`),
 * `DEMO_EXIT=1` exits after the first full pass (used by the test).
 * @module
 */
import { start } from "../main.ts";
import { nextOpenDay } from "../lib/domain/delivery_day.ts";
import { maloCheckDigit } from "../lib/domain/malo.ts";
import { startSimulator } from "./market_platform_simulator.ts";
import { startTsoSimulator } from "./tso_simulator.ts";
import { encodeBase64Url } from "./base64url.ts";
import { intradayToday, parkRows } from "./demo_intraday.ts";
import { settleYesterday } from "./demo_settlement.ts";
import { learnedLine, seedLearnedLocation } from "./demo_learned.ts";

const AREAS = ["10YDE-RWENET---I", "10YDE-EON------1", "10YDE-ENBW-----N", "10YDE-VE-------2"];
const PROFILES: [string, number, number][] = [
  // profile, share of the portfolio, typical annual kWh
  ["H0", 0.35, 3_500],
  ["H25", 0.15, 3_200],
  ["P25", 0.08, 4_500],
  ["S25", 0.04, 5_000],
  ["G0", 0.12, 40_000],
  ["G25", 0.06, 60_000],
  ["G1", 0.05, 25_000],
  ["G4", 0.05, 30_000],
  ["L0", 0.05, 80_000],
  ["L25", 0.05, 90_000],
];

const key = () => encodeBase64Url(crypto.getRandomValues(new Uint8Array(24)));
const malo = (n: number) => {
  const first10 = `4${String(n).padStart(9, "0")}`;
  return `${first10}${maloCheckDigit(first10)}`;
};
/** Deterministic pseudo-random numbers (mulberry32) so every demo has the same portfolio. */
function rng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const t0 = Date.now();
const locations = Number(Deno.env.get("DEMO_LOCATIONS") ?? 400);
const stamp = new Date().toISOString().replace(/[-:]/g, "").slice(0, 15);
const dir = `${Deno.env.get("DEMO_DATA_DIR") ?? "./data"}/demo-${stamp}`;
await Deno.mkdir(dir, { recursive: true });
const simulatorPort = Deno.env.get("SIMULATOR_PORT");
const sim = await startSimulator({ port: simulatorPort ? Number(simulatorPort) : undefined });
await Deno.writeTextFile(`${dir}/simulator-ca.pem`, sim.caCert);
// The TSOs: they answer every schedule handed over to the outbox (ACK, then a CNF).
// On the system clock, so they keep the lead-time and 18:00 rules (docs/intraday.md).
const tsos = startTsoSimulator({
  outbox: `${dir}/outbox`,
  inbox: `${dir}/inbox`,
  cnfDelayMs: 300,
  clock: { now: () => Date.now() },
  leadMinutes: Number(Deno.env.get("INTRADAY_LEAD_MINUTES") ?? 15),
  tsoDeadlineLocalTime: Deno.env.get("TSO_DEADLINE_LOCAL_TIME") ?? "14:30",
});
const processKey = key();
const externalKey = key();
const server = await start({
  ...Deno.env.toObject(),
  PORT: Deno.env.get("PORT") ?? "8000",
  HOSTNAME: Deno.env.get("HOSTNAME") ?? "127.0.0.1",
  KV_PATH: `${dir}/bridge.kv`,
  OUTBOX_DIR: `${dir}/outbox`,
  PROCESS_API_KEYS: `operator:${processKey}`,
  EXTERNAL_API_KEYS: `customer:${externalKey}`,
  MARKET_PLATFORM_URL: sim.url,
  MARKET_PLATFORM_API_KEY: sim.apiKey,
  MARKET_PLATFORM_CA_FILE: `${dir}/simulator-ca.pem`,
  // The demo registers its portfolio in one go (up to 200 batches at 100,000 locations): a
  // generous per-caller limit unless the environment sets one.
  RATE_LIMIT_PER_MINUTE: Deno.env.get("RATE_LIMIT_PER_MINUTE") ?? "60000",
  RATE_LIMIT_BURST: Deno.env.get("RATE_LIMIT_BURST") ?? "1000",
  BALANCING_GROUP: "11XDE-EXAMPLE--H",
  SENDER_EIC: "11XDE-EXAMPLE--H",
  // Schedules go to the TSOs as ESS documents through the outbox; their answers come back in.
  COUNTERPARTY_EIC: Deno.env.get("COUNTERPARTY_EIC") ?? "11XEPEX-SPOT-DEJ",
  SCHEDULE_CHANNEL: Deno.env.get("SCHEDULE_CHANNEL") ?? "files",
  SCHEDULE_FORMAT: Deno.env.get("SCHEDULE_FORMAT") ?? "ess",
  SCHEDULE_INBOX_DIR: `${dir}/inbox`,
  ACTUALS_INBOX_DIR: `${dir}/actuals-inbox`,
});
const { port } = server.addr as Deno.NetAddr;
const base = `http://127.0.0.1:${port}`;

async function api(
  path: string,
  method = "GET",
  body?: unknown,
  apiKey = processKey,
  type = "application/json",
) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { "x-api-key": apiKey, "content-type": type },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${text}`);
  return text ? JSON.parse(text) : null;
}

// Portfolio: profile locations, then PV parks (generation) with a customer forecast as CSV.
const random = rng(42);
const day = nextOpenDay(Date.now());
const parks = Math.max(4, Math.round(locations * 0.05));
const portfolio: Record<string, unknown>[] = [];
for (let i = 0; i < locations - parks; i++) {
  let pick = random(), p = PROFILES[0];
  for (const cand of PROFILES) {
    if ((pick -= cand[1]) <= 0) {
      p = cand;
      break;
    }
  }
  portfolio.push({
    malo_id: malo(i + 1),
    control_area: AREAS[i % 4],
    direction: "consumption",
    standard_load_profile: p[0],
    annual_kwh: Math.round(p[2] * (0.5 + random())),
    name: `${p[0]} customer ${i + 1}`,
  });
}
const csv = ["market_location_id,start,kw"];
const parkList: { id: string; peakKw: number }[] = [];
for (let j = 0; j < parks; j++) {
  const id = malo(locations - parks + j + 1);
  const peakKw = Math.round(500 + 1500 * random());
  parkList.push({ id, peakKw });
  portfolio.push({
    malo_id: id,
    control_area: AREAS[j % 4],
    direction: "generation",
    name: `PV park ${j + 1} (${peakKw} kWp, battery)`,
  });
  csv.push(...parkRows(id, day, peakKw));
}
for (let i = 0; i < portfolio.length; i += 500) {
  await api(
    "/v1/market-locations",
    "PUT",
    { market_locations: portfolio.slice(i, i + 500) },
    externalKey,
  );
}
// At most 500 forecasts (market location × day) per request: the parks' CSV in chunks of 400.
const rowsPerDay = (csv.length - 1) / parks;
for (let j = 0; j < parks; j += 400) {
  const rows = csv.slice(1 + j * rowsPerDay, 1 + Math.min(parks, j + 400) * rowsPerDay);
  await api("/v1/forecasts", "POST", [csv[0], ...rows].join("\n") + "\n", externalKey, "text/csv");
}
// One metered location with the real OpenSTEF history and its weather: learned forecasts.
const learned = await seedLearnedLocation({
  api,
  externalKey,
  kvPath: `${dir}/bridge.kv`,
  id: malo(locations + 1),
  area: AREAS[0],
  locations,
});
await api("/v1/console/start", "POST");
// `wait=true`: the cron's pass of the minute may be under way; run after it, not 409.
const pass = await api("/v1/orchestrate?wait=true", "POST");
// Wait for the TSOs' answers (an ACK at once, a CNF shortly after) and import them.
type Sched = { control_area: string; tso_status: string };
let schedules: Sched[] = [];
const filesChannel = (Deno.env.get("SCHEDULE_CHANNEL") ?? "files") === "files";
for (let i = 0; filesChannel && i < 50; i++) {
  await api("/v1/schedule-responses/import", "POST");
  const o = await api("/v1/console/delivery-days");
  schedules = o.delivery_days.find((d: { delivery_day: string }) => d.delivery_day === day)
    ?.schedules ?? [];
  if (schedules.length && schedules.every((x) => x.tso_status === "confirmed")) break;
  await new Promise((r) => setTimeout(r, 200));
}
const confirmed = schedules.filter((x) => x.tso_status === "confirmed").length;
const learnedReport = await learnedLine(api, learned.id, day);
// Intraday: today's PV forecasts arrive, today's next version goes out (files channel).
const today = filesChannel ? await intradayToday(api, externalKey, parkList) : null;
// After delivery: yesterday's actuals and prices arrive; the settlement (docs/settlement.md).
const yesterday = await settleYesterday({
  api,
  kvPath: `${dir}/bridge.kv`,
  inbox: `${dir}/actuals-inbox`,
  portfolio,
  parks: parkList,
  areas: AREAS,
  learned,
});
const overview = await api("/v1/console/delivery-days");
const entry = overview.delivery_days.find((d: { delivery_day: string }) => d.delivery_day === day);
const published = entry?.steps.published;
const submitted = entry?.steps.submitted;
const seconds = ((Date.now() - t0) / 1000).toFixed(1);
const summary = {
  delivery_day: day,
  console: `${base}/console`,
  process_key: processKey,
  external_key: externalKey,
  csv: published?.detail.location ?? null,
  aggregate_version: entry?.steps.aggregated?.version ?? null,
  submitted: submitted
    ? { version: submitted.version, documents: submitted.detail.documents ?? [] }
    : null,
  confirmed: `${confirmed} of ${schedules.length} confirmed`,
  simulator: { url: sim.url, key: sim.apiKey, ca: `${dir}/simulator-ca.pem` },
  days_in_first_pass: pass.days.length,
  today,
  yesterday,
  learned: {
    id: learned.id,
    line: learnedReport.line,
    method: learnedReport.model.days.find((d) => d.delivery_day === day)?.method ?? null,
    last_28_days: learnedReport.model.last_28_days,
  },
  seconds: Number(seconds),
};
console.log(`
Scheduling bridge demo — first pass done in ${seconds} s
  delivery day:  ${day} (${entry?.quarter_hours} quarter-hours, gate closure ${entry?.gate_closure})
  portfolio:     ${
  locations - parks
} profile customers + ${parks} PV parks + 1 metered location with learned forecasts in 4 control areas
  state:         aggregated v${summary.aggregate_version} → published → ${
  submitted
    ? filesChannel
      ? `handed over to the TSOs as ESS documents → ${summary.confirmed}`
      : `submitted to the market platform (receipt ${submitted.detail.receipt?.submission_id})`
    : "NOT submitted (see the console's event log)"
}
  CSV:           ${summary.csv}
  console:       ${summary.console}
  process key:   ${processKey}   (caller "operator"; shown only now)
  external key:  ${externalKey}   (caller "customer")
  KV:            ${dir}/bridge.kv
The orchestrator keeps running every minute. Stop with Ctrl-C.${today ? `\n${today.line}` : ""}
${learnedReport.line}
${yesterday.line}`);
console.log(`DEMO_SUMMARY ${JSON.stringify(summary)}`);
if (Deno.env.get("DEMO_EXIT") === "1") {
  await server.shutdown();
  await sim.close();
  await tsos.close();
  const answered = !filesChannel || (confirmed > 0 && confirmed === schedules.length);
  Deno.exit(submitted && answered ? 0 : 1);
}
