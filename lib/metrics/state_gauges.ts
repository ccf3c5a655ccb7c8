/**
 * Gauges computed from the shared state at scrape time (docs/metrics.md, "State"): the schedule
 * documents of today and tomorrow by control area and TSO status, when tomorrow's schedules are
 * due confirmed, tomorrow's missing forecasts, the orchestrator's state and pass health, live-stream
 * clients and KV retries. One scrape reads a bounded amount: the TSO statuses of two days (one
 * entry per control area), tomorrow's aggregate, and the cached orchestrator state, pass health
 * and configuration — read once per scrape, shared by every gauge.
 *
 * Two groups are registered only when their source is given (the app gives both, from
 * lib/metrics/hook_sources.ts): the locked deviation per control area for today (intraday
 * schedules) and the store's size facts (retention).
 * @module
 */
import type { Clock } from "../clock.ts";
import { addDays, deliveryDay, localDayOf } from "../domain/delivery_day.ts";
import { type TsoState, type TsoStatus, tsoStatuses } from "../fahrplan/tso_status.ts";
import { forecastCoverage, readAggregate } from "../pipeline/aggregate.ts";
import { kvRetryCounts } from "../store/kv.ts";
import type { OrchestratorState, PassHealth } from "../wire/orchestrator.ts";
import { Counter, Gauge, METRIC_PREFIX, type Registry } from "./registry.ts";

/**
 * Local time (Europe/Berlin) on the day before delivery by which every schedule of that delivery
 * day should be confirmed by its TSO (docs/metrics.md, "Alerts").
 */
export const CONFIRMATION_DUE_LOCAL_TIME = "15:00";

/** Joules in one MWh: the locked deviation gauge is in the base unit. */
export const JOULES_PER_MWH = 3.6e9;

/** The TSO states of a schedule document, and `none` for an area without one. */
const DOCUMENT_STATES: readonly (TsoState | "none")[] = [
  "none",
  "sent",
  "acknowledged",
  "rejected",
  "confirmed",
  "anomaly",
];

/** The store's size facts (retention, item 1 of issue 23): the source of the store gauges. */
export interface StoreFacts {
  /** Delivery days kept in KV. */
  days_kept: number;
  /** The oldest delivery day kept, `YYYY-MM-DD`, or `null`. */
  oldest_day: string | null;
  /** Events kept in KV. */
  events_kept: number;
  /** ISO-8601 UTC instant of the last pruning, or `null`. */
  last_pruning_at: string | null;
}

/** What the gauges read. */
export interface StateSources {
  kv: Deno.Kv;
  clock: Clock;
  /** EICs of the active control areas (the effective configuration). */
  activeAreas(): Promise<readonly string[]>;
  orchestratorState(): Promise<Readonly<OrchestratorState>>;
  /** The shared pass health, `null` before the first pass. */
  passHealth(): Promise<Readonly<PassHealth> | null>;
  /** Open live-stream connections of this process. */
  streamClients(): number;
  /** Told when a scrape could not read the state (the gauges are then left out). */
  onError?(err: unknown): void;
  /**
   * Today's locked deviation per control area EIC, MWh (intraday schedules). Absent: the gauge
   * `fahrplan_locked_deviation_joules` is not registered.
   */
  lockedDeviationMwh?(): Promise<Record<string, number>>;
  /**
   * The store's size facts (retention), `null` before the first count (the gauges are then left
   * out). Absent: the `fahrplan_store_*` gauges are not registered.
   */
  storeFacts?(): Promise<StoreFacts | null>;
}

/** The state one scrape reads once. */
interface Snapshot {
  days: { label: "today" | "tomorrow"; statuses: TsoStatus[] }[];
  areas: readonly string[];
  dueMs: number;
  coverage: ReturnType<typeof forecastCoverage> | undefined;
  running: boolean;
  health: Readonly<PassHealth> | null;
}

const seconds = (iso: string | undefined) => iso === undefined ? NaN : Date.parse(iso) / 1000;

/** Registers the state gauges on `registry`. */
export function registerStateGauges(registry: Registry, src: StateSources): void {
  let pending: Promise<Snapshot | undefined> | undefined;
  const failures = new Counter({
    name: `${METRIC_PREFIX}state_collect_failures_total`,
    help: "Scrapes whose state gauges could not be read (they were left out).",
    registers: [registry],
    // Waits for this scrape's read, so a failure is counted in the same scrape.
    async collect() {
      await snapshot();
    },
  });
  // Every gauge's collect runs in the same scrape: the first one reads, the others share it.
  const snapshot = (): Promise<Snapshot | undefined> => {
    pending ??= read(src).catch((err) => {
      failures.inc();
      src.onError?.(err);
      return undefined;
    }).finally(() => queueMicrotask(() => pending = undefined));
    return pending;
  };
  const gauge = (
    name: string,
    help: string,
    labelNames: string[],
    fill: (g: Gauge<string>, s: Snapshot) => void,
  ) =>
    new Gauge({
      name: METRIC_PREFIX + name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        const s = await snapshot();
        this.reset();
        // Without labels `reset` leaves a 0: an unknown value is left out instead.
        if (labelNames.length === 0) this.remove();
        if (s) fill(this, s);
      },
    });

  gauge(
    "schedule_documents",
    "Schedule documents by delivery day (today, tomorrow), control area and TSO status (1 = the area's latest document is in this status; none = no document).",
    ["day", "control_area", "tso_status"],
    (g, s) => {
      for (const d of s.days) {
        const byArea = new Map(d.statuses.map((st) => [st.control_area, st.tso_status]));
        for (const area of new Set([...s.areas, ...byArea.keys()])) {
          const now = byArea.get(area) ?? "none";
          for (const st of DOCUMENT_STATES) {
            g.set({ day: d.label, control_area: area, tso_status: st }, st === now ? 1 : 0);
          }
        }
      }
    },
  );
  gauge(
    "schedules_unconfirmed",
    "Control areas (active, or with a document) whose schedule for the day is not confirmed by its TSO.",
    ["day"],
    (g, s) => {
      for (const d of s.days) {
        const confirmed = new Set(
          d.statuses.filter((st) => st.tso_status === "confirmed").map((st) => st.control_area),
        );
        const all = new Set([...s.areas, ...d.statuses.map((st) => st.control_area)]);
        g.set({ day: d.label }, [...all].filter((a) => !confirmed.has(a)).length);
      }
    },
  );
  gauge(
    "schedule_confirmation_due_timestamp_seconds",
    `When tomorrow's schedules should be confirmed: ${CONFIRMATION_DUE_LOCAL_TIME} Europe/Berlin today, unix seconds.`,
    [],
    (g, s) => g.set(s.dueMs / 1000),
  );
  gauge(
    "forecasts_missing",
    "Market locations of active control areas without a forecast in the day's latest aggregate.",
    ["day"],
    (g, s) => s.coverage && g.set({ day: "tomorrow" }, s.coverage.missing),
  );
  gauge(
    "forecasts_missing_ratio",
    "Share (0..1) of the market locations of active control areas without a forecast in the day's latest aggregate.",
    ["day"],
    (g, s) =>
      s.coverage &&
      g.set({ day: "tomorrow" }, s.coverage.of === 0 ? 0 : s.coverage.missing / s.coverage.of),
  );
  gauge(
    "orchestrator_running",
    "1 while the orchestrator is running, 0 while it is stopped.",
    [],
    (g, s) => g.set(s.running ? 1 : 0),
  );
  gauge(
    "orchestrator_failed_passes_in_a_row",
    "Orchestrator passes in a row whose outcome was failed (any replica).",
    [],
    (g, s) => g.set(s.health?.failed_in_a_row ?? 0),
  );
  gauge(
    "orchestrator_last_successful_pass_timestamp_seconds",
    "End of the last orchestrator pass with outcome ok or nothing_to_do (any replica), unix seconds.",
    [],
    (g, s) => {
      const t = seconds(s.health?.last_ok_at);
      if (Number.isFinite(t)) g.set(t);
    },
  );
  gauge(
    "orchestrator_last_pass_timestamp_seconds",
    "End of the last orchestrator pass, whatever its outcome (any replica), unix seconds.",
    [],
    (g, s) => {
      const t = seconds(s.health?.last_pass.finished_at);
      if (Number.isFinite(t)) g.set(t);
    },
  );
  new Gauge({
    name: `${METRIC_PREFIX}live_stream_clients`,
    help: "Open live event streams (GET /v1/console/events/stream) of this process.",
    registers: [registry],
    collect() {
      this.set(src.streamClients());
    },
  });
  new Counter({
    name: `${METRIC_PREFIX}kv_retries_total`,
    help:
      "KV attempts this process tried again, by reason (locked: database is locked; conflict: a checked write found the entry changed).",
    labelNames: ["reason"],
    registers: [registry],
    collect() {
      this.reset();
      const c = kvRetryCounts();
      this.inc({ reason: "locked" }, c.locked);
      this.inc({ reason: "conflict" }, c.conflict);
    },
  });
  // A source that fails leaves its gauges out of this scrape (and is counted), never the scrape.
  const guarded = <T>(source: () => Promise<T>) => (): Promise<T | undefined> =>
    source().catch((err) => {
      failures.inc();
      src.onError?.(err);
      return undefined;
    });
  if (src.lockedDeviationMwh) {
    registerLockedDeviation(registry, guarded(src.lockedDeviationMwh));
  }
  if (src.storeFacts) registerStoreFacts(registry, guarded(src.storeFacts));
}

/** Reads what one scrape shows. */
async function read(src: StateSources): Promise<Snapshot> {
  const now = src.clock.now();
  const today = localDayOf(now);
  const tomorrow = addDays(today, 1);
  const [areas, todays, tomorrows, aggregate, state, health] = await Promise.all([
    src.activeAreas(),
    tsoStatuses(src.kv, today),
    tsoStatuses(src.kv, tomorrow),
    readAggregate(src.kv, tomorrow),
    src.orchestratorState(),
    src.passHealth(),
  ]);
  return {
    days: [{ label: "today", statuses: todays }, { label: "tomorrow", statuses: tomorrows }],
    areas,
    dueMs: deliveryDay(tomorrow, CONFIRMATION_DUE_LOCAL_TIME).gateClosure.epochMilliseconds,
    coverage: aggregate ? forecastCoverage(aggregate.counts) : undefined,
    running: state.state === "running",
    health,
  };
}

/**
 * Intraday schedules: `fahrplan_locked_deviation_joules{control_area}`, in the base unit of
 * energy (Prometheus naming conventions); 1 MWh = {@link JOULES_PER_MWH} J.
 */
function registerLockedDeviation(
  registry: Registry,
  source: () => Promise<Record<string, number> | undefined>,
): void {
  new Gauge({
    name: `${METRIC_PREFIX}locked_deviation_joules`,
    help:
      "Today's locked deviation per control area: the sum over the frozen quarter-hours of |open position - the schedule the TSO has| x 0.25 h, joules (1 MWh = 3.6e9 J).",
    labelNames: ["control_area"],
    registers: [registry],
    async collect() {
      const byArea = await source();
      this.reset();
      for (const [area, mwh] of Object.entries(byArea ?? {})) {
        this.set({ control_area: area }, mwh * JOULES_PER_MWH);
      }
    },
  });
}

/** Retention: `fahrplan_store_*` from the store's size facts. */
function registerStoreFacts(
  registry: Registry,
  source: () => Promise<StoreFacts | null | undefined>,
): void {
  let pending: Promise<StoreFacts | null | undefined> | undefined;
  const facts = () => pending ??= source().finally(() => queueMicrotask(() => pending = undefined));
  const fact = (name: string, help: string, value: (f: StoreFacts) => number) =>
    new Gauge({
      name: METRIC_PREFIX + name,
      help,
      registers: [registry],
      async collect() {
        const f = await facts();
        const v = f ? value(f) : NaN;
        this.reset();
        this.remove();
        if (Number.isFinite(v)) this.set(v);
      },
    });
  fact(
    "store_delivery_day_states",
    "Delivery days whose state is kept in the store.",
    (f) => f.days_kept,
  );
  fact("store_events_kept", "Events kept in the store.", (f) => f.events_kept);
  fact(
    "store_oldest_day_timestamp_seconds",
    "Start of the oldest delivery day kept, unix seconds.",
    (f) => f.oldest_day ? deliveryDay(f.oldest_day).start.epochMilliseconds / 1000 : NaN,
  );
  fact(
    "store_last_pruning_timestamp_seconds",
    "When the store was last pruned, unix seconds.",
    (f) => seconds(f.last_pruning_at ?? undefined),
  );
}
