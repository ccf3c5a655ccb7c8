/**
 * The KV key layout (docs/kv.md): the one module that builds KV keys.
 * Every other module asks here for the key of what it stores, and each kind of record has one
 * owning module that reads and writes it (named beside each key below). `tests/unit/layers_test.ts`
 * checks that no other module spells a key.
 * @module
 */

/** Every key of the service, by what it holds. */
export const KEYS = {
  /** State of one delivery day (`YYYY-MM-DD`, Europe/Berlin). Owner: `lib/pipeline/day_state.ts`. */
  day: (day: string): Deno.KvKey => ["days", day],
  /** Every day state. */
  days: ["days"] as Deno.KvKey,
  /** The day states from `from` (inclusive) on, for `kv.list`. */
  daysFrom: (from: string): Deno.KvListSelector => ({
    start: ["days", from],
    end: ["days", "\uffff"],
  }),

  /** Master data of one market location. Owner: `lib/pipeline/market_locations.ts`. */
  marketLocation: (maloId: string): Deno.KvKey => ["market_locations", maloId],
  /** Every market location, or those after `after` (MaLo-ID order), for `kv.list`. */
  marketLocations: (after?: string): Deno.KvListSelector =>
    after === undefined
      ? { prefix: ["market_locations"] }
      : { start: ["market_locations", after + "\0"], end: ["market_locations", "\uffff"] },
  /** The prefix of every market location's key (the MaLo-ID follows). */
  marketLocationPrefix: ["market_locations"] as Deno.KvKey,
  /** Counter bumped by every master-data change (a `Deno.KvU64`). Owner: `lib/pipeline/master_data.ts`. */
  masterDataVersion: ["meta", "market_locations_version"] as Deno.KvKey,
  /** The turn of a replica that kept losing master-data commits (`lib/store/turn.ts`). Owner: as above. */
  masterDataTurn: ["meta", "market_locations_turn"] as Deno.KvKey,
  /**
   * One control area's market locations summed per direction and profile (count, annual Wh).
   * Owner: `lib/pipeline/profile_classes.ts`.
   */
  profileClassesOfArea: (area: string): Deno.KvKey => ["profile_classes", area],
  /** Every control area's profile classes, for `kv.list`. */
  profileClassesAll: { prefix: ["profile_classes"] } as Deno.KvListSelector,
  /** The master-data version the stored profile classes reflect. Owner: as above. */
  profileClassesVersion: ["meta", "profile_classes_version"] as Deno.KvKey,

  /** The turn of a replica that kept losing forecast uploads (`lib/store/turn.ts`). Owner: as below. */
  forecastTurn: ["meta", "forecasts_turn"] as Deno.KvKey,
  /** Latest forecast of one market location for one day. Owner: `lib/pipeline/forecasts.ts`. */
  forecast: (day: string, maloId: string): Deno.KvKey => ["forecasts", day, maloId],
  /** Every forecast of one day, for `kv.list` (the MaLo-ID is the key's third part). */
  forecastsOfDay: (day: string): Deno.KvListSelector => ({ prefix: ["forecasts", day] }),
  /** The prefix of one day's forecast keys (the MaLo-ID follows). */
  forecastPrefixOfDay: (day: string): Deno.KvKey => ["forecasts", day],

  /**
   * The learned forecast of one metered market location for one day (a model fitted on its
   * actuals and weather, or a customer forecast corrected by its errors; docs/forecasting.md,
   * "In the service"). Owner: `lib/pipeline/forecasts.ts`.
   */
  learnedForecast: (day: string, maloId: string): Deno.KvKey => ["learned_forecasts", day, maloId],
  /** The prefix of one day's learned forecast keys (the MaLo-ID follows). */
  learnedForecastPrefixOfDay: (day: string): Deno.KvKey => ["learned_forecasts", day],
  /** Every learned forecast of one day, for `kv.list`. */
  learnedForecastsOfDay: (day: string): Deno.KvListSelector => ({
    prefix: ["learned_forecasts", day],
  }),
  /**
   * The fitted model of one metered market location: method, features, coefficients, window and
   * its errors over the last 28 days. Owner: `lib/pipeline/forecast_models.ts`.
   */
  forecastModel: (maloId: string): Deno.KvKey => ["forecast_models", maloId],
  /** The prefix of every forecast model's key (the MaLo-ID follows). */
  forecastModelPrefix: ["forecast_models"] as Deno.KvKey,
  /** Every forecast model, or those after `after` (MaLo-ID order), for `kv.list`. */
  forecastModels: (after?: string): Deno.KvListSelector =>
    after === undefined
      ? { prefix: ["forecast_models"] }
      : { start: ["forecast_models", after + "\0"], end: ["forecast_models", "\uffff"] },
  /**
   * What the last refresh of the learned forecasts did: counts by method, the locations without
   * a learned forecast and why, the weather points in use. Owner: `lib/pipeline/forecast_models.ts`.
   */
  forecastModelsSummary: ["forecast_models_summary"] as Deno.KvKey,

  /** Latest aggregate (open position) of one day. Owner: `lib/pipeline/aggregate.ts`. */
  aggregate: (day: string): Deno.KvKey => ["aggregates", day],

  /** Claim and receipt of one submitted aggregate version. Owner: `lib/pipeline/submit.ts`. */
  submission: (day: string, version: number): Deno.KvKey => ["submissions", day, version],

  /**
   * Message version of the schedule document of one day and control area, and the aggregate
   * version it carries. Owner: `lib/fahrplan/versions.ts`.
   */
  scheduleVersion: (day: string, controlArea: string): Deno.KvKey => [
    "schedule_versions",
    day,
    controlArea,
  ],

  /** What the TSO made of one day's and area's schedule. Owner: `lib/fahrplan/tso_status.ts`. */
  tsoStatus: (day: string, controlArea: string): Deno.KvKey => ["tso_status", day, controlArea],
  /**
   * The last status request (SRQ) of one day and control area: version, overdue state, file.
   * Owner: `lib/fahrplan/status_requests.ts`.
   */
  statusRequest: (day: string, controlArea: string): Deno.KvKey => [
    "status_request",
    day,
    controlArea,
  ],
  /** Every status request of one day, for `kv.list`. */
  statusRequestsOfDay: (day: string): Deno.KvListSelector => ({ prefix: ["status_request", day] }),
  /** Every TSO status of the days from `day` on, for `kv.list`. */
  tsoStatusesFrom: (day: string): Deno.KvListSelector => ({
    start: ["tso_status", day],
    end: ["tso_status", "\uffff"],
  }),
  /** Every TSO status of one day, for `kv.list`. */
  tsoStatusesOfDay: (day: string): Deno.KvListSelector => ({ prefix: ["tso_status", day] }),
  /**
   * A document sent to the market platform whose TSO state is not final yet: the submission id
   * to poll. Owner: `lib/fahrplan/tso_status.ts`.
   */
  platformPending: (day: string, controlArea: string): Deno.KvKey => [
    "platform_pending",
    day,
    controlArea,
  ],
  /** Every pending platform document, for `kv.list`. */
  platformPendingAll: { prefix: ["platform_pending"] } as Deno.KvListSelector,
  /**
   * One sent schedule version of a day and control area: phase, sent_at, frozen_before, its
   * quantities and what the TSO answered about it. Owner: `lib/fahrplan/history.ts`.
   */
  scheduleHistory: (day: string, controlArea: string, version: number): Deno.KvKey => [
    "schedule_history",
    day,
    controlArea,
    version,
  ],
  /** Every sent version of one day and control area, oldest first, for `kv.list`. */
  scheduleHistoryOf: (day: string, controlArea: string): Deno.KvListSelector => ({
    prefix: ["schedule_history", day, controlArea],
  }),

  /** One event record. Owner: `lib/store/events.ts`. */
  event: (id: number): Deno.KvKey => ["events", id],
  /** Every event record, for `kv.list`. */
  events: ["events"] as Deno.KvKey,
  /** Id of the newest event (watched and polled for live delivery). Owner: as above. */
  eventsHead: ["events_head"] as Deno.KvKey,
  /** The turn of a replica that kept losing appends (`lib/store/turn.ts`). Owner: as above. */
  eventsTurn: ["events_turn"] as Deno.KvKey,

  /** The console's configuration overrides. Owner: `lib/config/runtime_config.ts`. */
  configOverlay: ["config_overlay"] as Deno.KvKey,

  /** Orchestrator `running`/`stopped`. Owner: `lib/orchestrator/state.ts`. */
  orchestrator: ["orchestrator"] as Deno.KvKey,
  /** The last finished pass and the failed passes in a row. Owner: `lib/orchestrator/passes.ts`. */
  orchestratorPasses: ["orchestrator_passes"] as Deno.KvKey,
  /** One recorded pass, by sequence number. Owner: `lib/orchestrator/pass_history.ts`. */
  passHistoryEntry: (seq: number): Deno.KvKey => ["pass_history", seq],
  /** Every recorded pass, for `kv.list` (oldest first). */
  passHistory: { prefix: ["pass_history"] } as Deno.KvListSelector,
  /** Recorded passes before `seq` (exclusive), for a reverse `kv.list`. */
  passHistoryBefore: (seq: number): Deno.KvListSelector => ({
    start: ["pass_history", 0],
    end: ["pass_history", seq],
  }),
  /** Sequence number of the newest recorded pass. Owner: as above. */
  passHistorySeq: ["meta", "pass_history_seq"] as Deno.KvKey,
  /** The orchestrator's lease of one minute across replicas. Owner: `lib/orchestrator/orchestrator.ts`. */
  orchestratorLease: (minute: number): Deno.KvKey => ["leases", "orchestrator", minute],

  /**
   * One open story of a repeated orchestration failure (source, delivery day or `-`, a hash of
   * the normalised message). Owner: `lib/store/repeated_failures.ts`.
   */
  failureStory: (source: string, day: string | null, fingerprint: string): Deno.KvKey => [
    "failure_stories",
    source,
    day ?? "-",
    fingerprint,
  ],
  /** The open failure stories of one source and day, for `kv.list`. */
  failureStoriesOf: (source: string, day: string | null): Deno.KvListSelector => ({
    prefix: ["failure_stories", source, day ?? "-"],
  }),
  /**
   * Pruning state of one delivery day (phase `archiving` or `pruning`, files written so far).
   * Not day-scoped data: deleted in the atomic that deletes the day's last key. Owner:
   * `lib/retention/pruner.ts`.
   */
  retentionDay: (prunedDay: string): Deno.KvKey => ["retention", "day", prunedDay],
  /** Every day's pruning state, for `kv.list`. */
  retentionDays: { prefix: ["retention", "day"] } as Deno.KvListSelector,
  /** The retention lease across replicas (`{holder, until}`). Owner: as above. */
  retentionLease: ["leases", "retention"] as Deno.KvKey,
  /** The store's size facts and the last pruning (shown in the status). Owner: as above. */
  retentionFacts: ["retention", "facts"] as Deno.KvKey,

  /**
   * An answer file the inbox import moved to `rejected/`, until the operator acknowledges it or a
   * newer answer for its day and area arrives (docs/console_attention.md); expires after 30
   * days. Owner: `lib/fahrplan/rejected_answers.ts`.
   */
  rejectedAnswer: (file: string): Deno.KvKey => ["rejected_answers", file],
  /** Every waiting rejected answer file, for `kv.list`. */
  rejectedAnswers: { prefix: ["rejected_answers"] } as Deno.KvListSelector,
  // --- After delivery (docs/settlement.md) ---
  /** Metered kWh per quarter-hour of one market location and day. Owner: `lib/settlement/actuals_store.ts`. */
  actuals: (day: string, maloId: string): Deno.KvKey => ["actuals", day, maloId],
  /** Every metered market location of one day, for `kv.list`. */
  actualsOfDay: (day: string): Deno.KvListSelector => ({ prefix: ["actuals", day] }),
  /** A balancing-group sum (MSCONS `LOC+237`) of one day. Owner: as above. */
  balancingGroupSum: (day: string, group: string, area: string): Deno.KvKey => [
    "balancing_group_sums",
    day,
    group,
    area,
  ],
  /** Every balancing-group sum of one day, for `kv.list`. */
  balancingGroupSumsOfDay: (day: string): Deno.KvListSelector => ({
    prefix: ["balancing_group_sums", day],
  }),
  /**
   * A balancing-group sum of one day named by its MaBiS metering point (MSCONS 13003
   * `LOC+172+<Zählpunktbezeichnung>`). Owner: `lib/settlement/actuals_store.ts`.
   */
  meteringPointSum: (day: string, point: string): Deno.KvKey => [
    "metering_point_sums",
    day,
    point,
  ],
  /** Every metering-point sum of one day, for `kv.list`. */
  meteringPointSumsOfDay: (day: string): Deno.KvListSelector => ({
    prefix: ["metering_point_sums", day],
  }),
  /**
   * Imbalance prices of one day (reBAP, or the AEP estimate where no reBAP is known yet). Owner:
   * `lib/settlement/prices_store.ts`.
   */
  imbalancePrices: (day: string): Deno.KvKey => ["imbalance_prices", day],
  /** The intraday index price ID AEP of one day. Owner: `lib/settlement/id_aep_store.ts`. */
  intradayPrices: (day: string): Deno.KvKey => ["intraday_prices", day],
  /**
   * The BRP's own intraday trades of one day and control area, per quarter-hour. Owner:
   * `lib/settlement/intraday_trades.ts`.
   */
  intradayTrades: (day: string, area: string): Deno.KvKey => ["intraday_trades", day, area],
  /**
   * The operator's mark on the clearing list of one month and control area (checked, objected).
   * Owner: `lib/settlement/clearing_marks.ts`.
   */
  clearingMark: (month: string, area: string): Deno.KvKey => ["clearing_marks", month, area],
  /** Every clearing mark of one month, for `kv.list`. */
  clearingMarksOfMonth: (month: string): Deno.KvListSelector => ({
    prefix: ["clearing_marks", month],
  }),
  /** Every clearing mark, for `kv.list`. */
  clearingMarks: { prefix: ["clearing_marks"] } as Deno.KvListSelector,
  /**
   * When balancing-group sums of a month last arrived, per control area (what the clearing list's
   * attention item is read from). Owner: `lib/settlement/clearing_marks.ts`.
   */
  clearingMonth: (month: string): Deno.KvKey => ["clearing_months", month],
  /** Every month with sums, for `kv.list`. */
  clearingMonths: { prefix: ["clearing_months"] } as Deno.KvListSelector,

  // --- Weather (docs/weather.md) ---
  /**
   * One received version of one weather point's quarter-hour values within one delivery day (the
   * day's quarter-hours, Europe/Berlin), keyed by the instant it was received (epoch ms). Owner:
   * `lib/weather/store.ts`.
   */
  weatherVersion: (day: string, point: string, receivedMs: number): Deno.KvKey => [
    "weather",
    day,
    point,
    receivedMs,
  ],
  /** The versions of one point and day received before `beforeMs`, for a (reverse) `kv.list`. */
  weatherVersionsBefore: (day: string, point: string, beforeMs: number): Deno.KvListSelector => ({
    start: ["weather", day, point],
    end: ["weather", day, point, beforeMs],
  }),
  /** Every version of one point and day, for `kv.list`. */
  weatherVersionsOf: (day: string, point: string): Deno.KvListSelector => ({
    prefix: ["weather", day, point],
  }),
  /**
   * The newest known value of every quarter-hour of one point's delivery day over all its
   * versions, with when each was received: what "as known now" reads in one get. Written in the
   * same atomic as each version. Owner: `lib/weather/store.ts`.
   */
  weatherLatest: (day: string, point: string): Deno.KvKey => ["weather_latest", day, point],
  /** A weather point that has received weather: first and last delivery. Owner: `lib/weather/points.ts`. */
  weatherPoint: (point: string): Deno.KvKey => ["weather_points", point],
  /** Every weather point, or those after `after` (id order), for `kv.list`. */
  weatherPoints: (after?: string): Deno.KvListSelector =>
    after === undefined
      ? { prefix: ["weather_points"] }
      : { start: ["weather_points", after + "\0"], end: ["weather_points", "\uffff"] },

  /**
   * Counter (a `Deno.KvU64`) summed in the same atomic as every write under
   * {@link CONSOLE_INPUT_PREFIXES}: its versionstamp changes with anything the console's attention
   * list is read from. Owner: `lib/store/input_generation.ts`.
   */
  consoleInputsGeneration: ["meta", "console_inputs_generation"] as Deno.KvKey,

  /** Random stream-token key of OIDC-only deployments. Owner: `lib/auth/stream_token.ts`. */
  streamTokenSecret: ["secrets", "stream_token_key"] as Deno.KvKey,
} as const;

/**
 * The first key part of every record that belongs to one delivery day (the day is the key's
 * second part): what retention archives and deletes (docs/retention.md). A new `KEYS` entry
 * taking a `day` argument must be listed here — `tests/unit/retention_keys_test.ts` fails
 * otherwise.
 */
export const DAY_SCOPED_PREFIXES: readonly string[] = [
  "days",
  "forecasts",
  "learned_forecasts",
  "aggregates",
  "submissions",
  "schedule_versions",
  "schedule_history",
  "tso_status",
  "platform_pending",
  "status_request",
  "actuals",
  "balancing_group_sums",
  "metering_point_sums",
  "imbalance_prices",
  "intraday_prices",
  "intraday_trades",
  "weather",
  "weather_latest",
];

/**
 * Key prefixes that take a delivery day but are no record of it: they expire by themselves
 * (`expireIn`) and hold nothing a BRP must keep, so retention neither archives nor prunes them.
 * `failure_stories`: an open story of a repeated failure (at most 7 days; its events are the
 * record, docs/orchestrator.md, "Repeated failures").
 */
export const SELF_EXPIRING_DAY_KEYED: readonly string[] = ["failure_stories"];

/** Every key of one delivery day under `prefix`: `[prefix, day]` itself and every key below it. */
export function dayScopedRange(prefix: string, day: string): Deno.KvListSelector {
  return { start: [prefix, day], end: [prefix, day + "\0"] };
}

/**
 * The first key part of every record the console's attention list is read from
 * (`lib/console/attention.ts` through `lib/console/console_days.ts` and the rejected answer files):
 * a write under one of them bumps {@link KEYS.consoleInputsGeneration} in the same atomic
 * (`lib/store/input_generation.ts`), so `GET /v1/console/status` never answers from a list
 * computed before it. `tests/integration/console_attention_fresh_test.ts` reads the list through
 * a recording store and fails when it reads a prefix missing here.
 */
export const CONSOLE_INPUT_PREFIXES: readonly string[] = [
  "days",
  "aggregates",
  "tso_status",
  "status_request",
  "schedule_history",
  "rejected_answers",
  "clearing_marks",
  "clearing_months",
  "forecast_models_summary",
];
