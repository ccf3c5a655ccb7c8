/**
 * Submit (docs/pipeline.md, "Submit"): the day's latest aggregate as schedules per control
 * area (PT15M, MW) to the market platform — the JSON payload before gate closure only; schedule
 * documents (ESS/CIM, to the platform or as files) until no quarter-hour of the day is open, by
 * the rules of docs/intraday.md.
 *
 * Exactly once per aggregate version: a claim `["submissions", <day>, <version>]` is created
 * with a versionstamp check before anything is sent, so of two concurrent submitters (the
 * orchestrator and an operator, or two replicas) only one sends; the other gets the stored
 * receipt or a 409. A claim whose holder died expires after its lease and is taken over; the
 * resend carries the same `idempotency-key`, which the platform deduplicates.
 * @module
 */
import {
  type MarketPlatformError,
  type Receipt,
  sendSchedules,
} from "../adapters/market_platform.ts";
import type { Clock } from "../clock.ts";
import type { EffectiveConfig } from "../config/fields.ts";
import { deliveryDay } from "../domain/delivery_day.ts";
import { DomainError, NotConfigured, SubmissionInFlight } from "../domain/errors.ts";
import { assertBeforeGateClosure, assertScheduleOpen, gateClosure } from "../domain/deadlines.ts";
import { retryKv } from "../store/kv.ts";
import type { TextRedactor } from "../store/redactor.ts";
import type { Aggregate } from "./aggregate.ts";
import { readDay, recordStep } from "./day_state.ts";
import { assertParties, submittableAggregate } from "./submit_checks.ts";
import { type FilesSubmitResult, submitFiles } from "./submit_files.ts";
import { type PlatformDocument, sendDocuments } from "./submit_documents.ts";
import { type PreparedDocuments, prepareDocuments } from "./schedule_documents.ts";
import type { PlatformSubmitResult, UnchangedArea } from "../wire/steps.ts";
import { KEYS } from "../store/keys.ts";

/** A stored claim / receipt of one aggregate version. */
export interface Submission {
  state: "in_flight" | "done";
  version: number;
  claimed_by: string;
  claimed_at: string;
  /** Epoch ms after which an `in_flight` claim may be taken over. */
  lease_until: number;
  receipt?: Receipt;
  /** With ESS or CIM documents: their format and each document the platform took. */
  format?: "ess" | "cim";
  documents?: PlatformDocument[];
  /** Areas that got no new version: nothing open changed (docs/intraday.md). */
  unchanged?: UnchangedArea[];
}

/** Result of a submit call to the market platform (`lib/wire/steps.ts`). */
export type SubmitResult = PlatformSubmitResult;

/** Thrown when the platform refused or was unreachable; carries the platform error. */
export class SubmitFailed extends DomainError {
  readonly platform: MarketPlatformError;
  constructor(day: string, err: MarketPlatformError) {
    super("ERR_SUBMIT_FAILED", "failed", `Submission of ${day} failed: ${err.message}`, {
      cause: err,
    });
    this.name = "SubmitFailed";
    this.platform = err;
  }
}

const subKey = KEYS.submission;

/** The idempotency key of one aggregate version. */
export const idempotencyKey = (day: string, version: number) => `${day}-v${version}`;

/** Builds the JSON payload from an aggregate. */
export function schedulePayload(agg: Aggregate, cfg: EffectiveConfig) {
  const d = deliveryDay(agg.delivery_day);
  return {
    delivery_day: agg.delivery_day,
    aggregate_version: agg.version,
    sender_eic: cfg.sender_eic,
    balancing_group: cfg.balancing_group,
    resolution: "PT15M" as const,
    unit: "MW" as const,
    time_interval: { start: d.start.toString(), end: d.end.toString() },
    schedules: Object.entries(agg.areas).map(([control_area, quantities]) => ({
      control_area,
      quantities,
    })),
  };
}

/**
 * Submits the latest aggregate of `day` once and records the `submitted` step with the receipt.
 * @throws {GateClosed} JSON: after gate closure; documents: when no quarter-hour of the day is
 *   open beyond the lead time (nothing is sent); {@link NotAggregated} when the day
 *   is not aggregated; {@link NotConfigured} when the platform, the balancing group or the
 *   sender EIC is not configured; {@link SubmissionInFlight} while another submission of the
 *   same version is in flight; {@link SubmitFailed} when the platform refused or was unreachable
 */
export async function submitDay(
  kv: Deno.Kv,
  day: string,
  cfg: EffectiveConfig,
  opts: {
    by: string;
    /** The service's clock: gate closure, claim times and the platform client's retries. */
    clock: Clock;
    client?: Deno.HttpClient;
    backoffBaseMs?: number;
    /** Masks secrets in the platform's answers before they are quoted. */
    redactor?: TextRedactor;
  },
): Promise<SubmitResult | FilesSubmitResult> {
  const d = deliveryDay(day);
  const gc = gateClosure(d, cfg.gate_closure_local_time);
  // Schedule documents (files, or ESS/CIM to the platform) live until the day's last open
  // quarter-hour; the JSON market submission ends at gate closure (docs/intraday.md).
  const documents = cfg.schedule_channel === "files" || cfg.schedule_format !== "json";
  if (documents) {
    assertScheduleOpen(d, opts.clock.now(), cfg.intraday_lead_minutes, "nothing was submitted");
  } else {
    assertBeforeGateClosure(
      d,
      opts.clock.now(),
      cfg.gate_closure_local_time,
      "nothing was submitted",
    );
  }
  if (cfg.schedule_channel === "files") return await submitFilesChannel(kv, day, cfg, opts);
  if (!cfg.market_platform_url || !cfg.market_platform_api_key) {
    throw new NotConfigured(
      "ERR_PLATFORM_NOT_CONFIGURED",
      "The market platform is not configured (market_platform_url and market_platform_api_key); nothing was submitted.",
    );
  }
  assertParties(cfg, cfg.schedule_format !== "json", "nothing was submitted");
  const agg = await submittableAggregate(kv, day, cfg, "submitted");
  const key = idempotencyKey(day, agg.version);
  const budgetMs = cfg.market_platform_timeout_seconds * 1000;
  // Documents are built and checked before the claim: an invalid one is refused, nothing claimed.
  const prepared = cfg.schedule_format === "json"
    ? null
    : await prepareDocuments(kv, agg, cfg, opts.clock.now());
  if (prepared && !prepared.docs.length) {
    return await nothingChanged(kv, day, agg.version, key, prepared, opts);
  }

  // Claim the version (or find it done / in flight).
  const existing = await kv.get<Submission>(subKey(day, agg.version));
  const now = opts.clock.now();
  if (existing.value?.state === "done") {
    return await alreadyDone(kv, day, agg.version, key, existing.value, opts);
  }
  if (existing.value?.state === "in_flight" && existing.value.lease_until > now) {
    throw new SubmissionInFlight(
      `Version ${agg.version} of ${day} is being submitted by ${existing.value.claimed_by} since ${existing.value.claimed_at}; not sent twice.`,
    );
  }
  const claim: Submission = {
    state: "in_flight",
    version: agg.version,
    claimed_by: opts.by,
    claimed_at: new Date(now).toISOString(),
    lease_until: now + budgetMs + 30_000,
  };
  // `database is locked` (replicas on one SQLite file) is retried; a failed check is final here.
  const claimed = await retryKv(
    `claim submission of ${day} v${agg.version}`,
    () => kv.atomic().check(existing).set(subKey(day, agg.version), claim).commit(),
  );
  if (!claimed.ok) {
    const other = (await kv.get<Submission>(subKey(day, agg.version))).value;
    if (other?.state === "done") return await alreadyDone(kv, day, agg.version, key, other, opts);
    throw new SubmissionInFlight(
      `Version ${agg.version} of ${day} is being submitted by ${
        other?.claimed_by ?? "another caller"
      }; not sent twice.`,
    );
  }

  const target = {
    url: cfg.market_platform_url,
    apiKey: cfg.market_platform_api_key,
    timeoutSeconds: cfg.market_platform_timeout_seconds,
    // Nothing is sent after gate closure (JSON), or once the first open quarter-hour of the
    // documents enters the lead time (ESS/CIM), not even a retry.
    ...(prepared
      ? {
        stopAfterMs: prepared.leaveBeforeMs - opts.clock.now(),
        stopReason: `before the first open quarter-hour enters the lead time (${
          new Date(prepared.leaveBeforeMs).toISOString()
        })`,
      }
      : {
        stopAfterMs: gc.epochMilliseconds - opts.clock.now(),
        stopReason: `before gate closure ${gc.toString()}`,
      }),
    client: opts.client,
    backoffBaseMs: opts.backoffBaseMs,
    clock: opts.clock,
    redactor: opts.redactor,
  };
  let sent: Pick<Submission, "receipt" | "format" | "documents" | "unchanged">;
  try {
    sent = prepared
      ? {
        format: prepared.format,
        ...(prepared.unchanged.length ? { unchanged: prepared.unchanged } : {}),
        ...await sendDocuments(kv, prepared, target, key, opts.clock.now()),
      }
      : { receipt: await sendSchedules(target, schedulePayload(agg, cfg), key) };
  } catch (err) {
    // Release the claim so the next attempt (next tick, or the operator) may try again.
    await kv.delete(subKey(day, agg.version));
    throw new SubmitFailed(day, err as MarketPlatformError);
  }
  const done: Submission = { ...claim, state: "done", ...sent };
  await kv.set(subKey(day, agg.version), done);
  await recordSubmitted(kv, day, agg.version, key, done, opts.by, opts.clock.now());
  return resultOf(day, agg.version, key, true, done);
}

/**
 * No area's schedule changed in an open quarter-hour (docs/intraday.md, "When a version goes
 * out"): nothing is sent, nothing claimed; the `submitted` step records the aggregate version with
 * the reasons, so the orchestrator does not try it again.
 */
async function nothingChanged(
  kv: Deno.Kv,
  day: string,
  version: number,
  key: string,
  prepared: PreparedDocuments,
  opts: { by: string; clock: Clock },
): Promise<SubmitResult> {
  const receipt: Receipt = {
    status: 0,
    attempts: 0,
    idempotency_key: key,
    body: { documents: [] },
  };
  await recordStep(kv, day, "submitted", {
    version,
    at: new Date(opts.clock.now()).toISOString(),
    by: opts.by,
    detail: {
      channel: "platform",
      format: prepared.format,
      documents: [],
      unchanged: prepared.unchanged,
    },
  });
  return {
    delivery_day: day,
    version,
    idempotency_key: key,
    sent: false,
    receipt,
    format: prepared.format,
    documents: [],
    unchanged: prepared.unchanged,
  };
}

/** The answer of a submission from its stored record. */
function resultOf(
  day: string,
  version: number,
  key: string,
  sent: boolean,
  sub: Submission,
): SubmitResult {
  const documents = sub.documents;
  return {
    delivery_day: day,
    version,
    idempotency_key: key,
    sent,
    receipt: sub.receipt!,
    format: sub.format ?? "json",
    ...(documents ? { documents } : {}),
    ...(sub.unchanged ? { unchanged: sub.unchanged } : {}),
  };
}

/**
 * Records the `submitted` step of `version` with its receipt (detail: idempotency key, status,
 * attempts, receipt; with documents also `channel: "platform"`, the format and the documents).
 */
async function recordSubmitted(
  kv: Deno.Kv,
  day: string,
  version: number,
  key: string,
  sub: Submission,
  by: string,
  atMs: number,
): Promise<void> {
  const receipt = sub.receipt!;
  await recordStep(kv, day, "submitted", {
    version,
    at: new Date(atMs).toISOString(),
    by,
    detail: {
      idempotency_key: key,
      status: receipt.status,
      attempts: receipt.attempts,
      receipt: receipt.body,
      ...(sub.documents
        ? { channel: "platform", format: sub.format, documents: sub.documents }
        : {}),
      ...(sub.unchanged ? { unchanged: sub.unchanged } : {}),
    },
  });
}

/**
 * The version was submitted before: nothing is sent. When the `submitted` step does not show it
 * yet (the submitter stopped between storing the receipt and recording the step), it is
 * recorded now from the stored receipt, so the day does not stay "not submitted" forever.
 */
async function alreadyDone(
  kv: Deno.Kv,
  day: string,
  version: number,
  key: string,
  sub: Submission,
  opts: { by: string; clock: Clock },
): Promise<SubmitResult> {
  const recorded = (await readDay(kv, day)).value?.steps.submitted?.version ?? 0;
  if (recorded < version) {
    await recordSubmitted(kv, day, version, key, sub, sub.claimed_by, opts.clock.now());
  }
  return resultOf(day, version, key, false, sub);
}

/**
 * The files channel: parties (with the counterparty), aggregate and coverage as for the platform,
 * then one document per control area to the publish target (`./submit_files.ts`).
 */
async function submitFilesChannel(
  kv: Deno.Kv,
  day: string,
  cfg: EffectiveConfig,
  opts: { by: string; clock: Clock; redactor?: TextRedactor },
): Promise<FilesSubmitResult> {
  assertParties(cfg, true, "nothing was handed over");
  const agg = await submittableAggregate(kv, day, cfg, "handed over");
  return await submitFiles(kv, agg, cfg, opts);
}
