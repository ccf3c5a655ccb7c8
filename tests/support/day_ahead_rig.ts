/**
 * The rig of the day-ahead end-to-end tests: the market-platform simulator over TLS and the
 * service on a temp-file KV at a fake clock, with helpers to register market locations, post
 * forecasts, run steps and read a day's overview entry.
 * @module
 */
import assert from "node:assert/strict";
import { startSimulator } from "../../dev/market_platform_simulator.ts";
import { FakeClock } from "../../lib/clock.ts";
import { call, startServer, type TestServer } from "./app.ts";
import { PARTIES } from "./fahrplan.ts";
import { EXT, ext, PROC, proc } from "./pipeline.ts";
import { AREAS, maloId } from "./portfolio.ts";

export { EXT, ext, PROC, proc };

export type Sim = Awaited<ReturnType<typeof startSimulator>>;
export type StepView = {
  version: number;
  by: string;
  stale: boolean;
  stale_reason: string | null;
  detail: Record<string, unknown>;
} | null;
export type DayView = {
  delivery_day: string;
  input_version: number;
  last_input: { source: string; market_locations: number } | null;
  steps: Record<"forecast" | "aggregated" | "published" | "submitted", StepView>;
};

export interface Rig {
  s: TestServer;
  sim: Sim;
  clock: FakeClock;
  dir: string;
  outbox: string;
  /** Environment of the service (for extra processes on the same KV file). */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * {@link rig} on the `platform` channel with ESS or CIM documents of the test parties
 * (`PARTIES`) for Amprion and TenneT, the simulator keeping the TSO's rules on the service's
 * clock, the orchestrator running, two days ahead.
 */
export function platformDocumentsRig(nowIso: string, format: "ess" | "cim"): Promise<Rig> {
  return rig(
    nowIso,
    {
      SENDER_EIC: PARTIES.sender,
      BALANCING_GROUP: PARTIES.balancingGroup,
      COUNTERPARTY_EIC: PARTIES.counterparty,
      SCHEDULE_CHANNEL: "platform",
      SCHEDULE_FORMAT: format,
      ACTIVE_CONTROL_AREAS: `${AREAS.amprion},${AREAS.tennet}`,
      ORCHESTRATOR_HORIZON_DAYS: "2",
      ORCHESTRATOR_AUTOSTART: "true",
    },
    undefined,
    (clock) => ({ clock }),
  );
}

/**
 * Simulator + service with the clock at `nowIso`. `platformUrl` replaces the simulator's URL
 * (e.g. a proxy in front of it); `simOpts` are the simulator's options (e.g. the clock).
 */
export async function rig(
  nowIso: string,
  extraEnv: Record<string, string> = {},
  platformUrl?: (sim: Sim) => string,
  simOpts?: (clock: FakeClock) => Parameters<typeof startSimulator>[0],
  serverOpts: Omit<Parameters<typeof startServer>[1], "clock"> = {},
): Promise<Rig> {
  const clock = new FakeClock(Date.parse(nowIso));
  const sim = await startSimulator(simOpts?.(clock));
  const dir = await Deno.makeTempDir({ prefix: "bridge-dayahead-" });
  await Deno.writeTextFile(`${dir}/ca.pem`, sim.caCert);
  const env = {
    PROCESS_API_KEYS: `ops:${PROC}`,
    EXTERNAL_API_KEYS: `acme:${EXT}`,
    RATE_LIMIT_PER_MINUTE: "0",
    MARKET_PLATFORM_URL: platformUrl ? platformUrl(sim) : sim.url,
    MARKET_PLATFORM_API_KEY: sim.apiKey,
    MARKET_PLATFORM_CA_FILE: `${dir}/ca.pem`,
    MARKET_PLATFORM_BACKOFF_MS: "10",
    MARKET_PLATFORM_TIMEOUT_SECONDS: "5",
    BALANCING_GROUP: "11XDE-EXAMPLE--H",
    SENDER_EIC: "11XDE-EXAMPLE--H",
    OUTBOX_DIR: `${dir}/outbox`,
    ...extraEnv,
  };
  let s: TestServer;
  try {
    s = await startServer(env, { ...serverOpts, clock });
  } catch (err) {
    await sim.close();
    throw err;
  }
  return {
    s,
    sim,
    clock,
    dir,
    outbox: `${dir}/outbox`,
    env,
    async close() {
      await s.close();
      await sim.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

export async function putLocation(s: TestServer, n: number, body: Record<string, unknown>) {
  const r = await call(`${s.url}/v1/market-locations/${maloId(n)}`, {
    method: "PUT",
    headers: ext,
    body: JSON.stringify(body),
  });
  assert.ok(r.status === 200 || r.status === 201, JSON.stringify(r.body));
}

export async function postForecast(s: TestServer, n: number, day: string, values: number[]) {
  const r = await call(`${s.url}/v1/forecasts`, {
    method: "POST",
    headers: ext,
    body: JSON.stringify({
      market_location_id: maloId(n),
      delivery_day: day,
      unit: "kW",
      values,
    }),
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

export const step = (s: TestServer, day: string, name: string) =>
  call(`${s.url}/v1/delivery-days/${day}/${name}`, { method: "POST", headers: proc });

export const orchestrate = (s: TestServer) =>
  call(`${s.url}/v1/orchestrate`, { method: "POST", headers: proc });

export async function dayView(s: TestServer, day: string): Promise<DayView> {
  const r = await call(`${s.url}/v1/console/delivery-days`, { headers: proc });
  const found = (r.body as { delivery_days: DayView[] }).delivery_days.find((d) =>
    d.delivery_day === day
  );
  assert.ok(found, `no overview entry for ${day}`);
  return found;
}

export const forDay = (sim: Sim, day: string) =>
  sim.submissions().filter((x) => x.body.delivery_day === day);

/** The delivery day of the failure-path tests. */
export const DAY = "2026-11-23";
/** 09:00 Berlin the day before {@link DAY}: its gate closure is ahead. */
export const BEFORE_GC = "2026-11-22T08:00:00Z"; // 09:00 Berlin; gate closure 2026-11-22T11:00:00Z

/** Two market locations with forecasts for DAY. */
export async function portfolio(s: TestServer) {
  await putLocation(s, 1, { control_area: AREAS.amprion, direction: "consumption" });
  await putLocation(s, 2, { control_area: AREAS.tennet, direction: "consumption" });
  await postForecast(s, 1, DAY, Array(96).fill(100));
  await postForecast(s, 2, DAY, Array(96).fill(200));
}

/**
 * A {@link rig} before gate closure on the `files` channel with CIM documents from the test
 * parties, its answer inbox (`<dir>/inbox`, set through the console's config) and the test
 * portfolio registered: the start of every test that imports CIM answers.
 */
export async function cimFilesRig(): Promise<Rig & { inbox: string }> {
  const r = await rig(BEFORE_GC, {
    SENDER_EIC: PARTIES.sender,
    BALANCING_GROUP: PARTIES.balancingGroup,
    COUNTERPARTY_EIC: PARTIES.counterparty,
    SCHEDULE_CHANNEL: "files",
    SCHEDULE_FORMAT: "cim",
  });
  const inbox = `${r.dir}/inbox`;
  await call(`${r.s.url}/v1/console/config`, {
    method: "PUT",
    headers: proc,
    body: JSON.stringify({ schedule_inbox_dir: inbox }),
  });
  await portfolio(r.s);
  return { ...r, inbox };
}
