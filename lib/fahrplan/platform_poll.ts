/**
 * The TSO's answers through the market platform (docs/fahrplan.md): with `schedule_channel=platform` and ESS or CIM documents, each document's
 * submission id is pending (`./tso_status.ts`) until the platform reports a final state
 * (`rejected`, `confirmed`, `anomaly`). Every orchestrator tick, whatever its state, asks
 * `GET {market_platform_url}/schedules/{id}` once per pending document and applies what changed
 * exactly as an answer file from the inbox (`./record_answer.ts`). A platform that cannot be asked
 * leaves every status as it is and is one `orchestration_error` event naming the cause, its
 * repeats counted on it until the platform answers again (lib/store/repeated_failures.ts).
 * A document the platform does not know (404), or whose delivery day ended more than a day ago,
 * is no longer asked about, with a warning that says so.
 * @module
 */
import type { Clock } from "../clock.ts";
import type { EffectiveConfig } from "../config/fields.ts";
import { fetchPlatformStatus, PlatformStatusError } from "../adapters/platform_status.ts";
import type { EventLog } from "../store/events.ts";
import type { TextRedactor } from "../store/redactor.ts";
import { recordAnswer } from "./record_answer.ts";
import { reportFailure, reportRecovery } from "../store/repeated_failures.ts";
import {
  dropPending,
  type PendingPlatformDocument,
  pendingPlatformDocuments,
  POLL_FOR_MS,
  type TsoState,
} from "./tso_status.ts";
import { deliveryDay } from "../domain/delivery_day.ts";

/** What one poll found for one document. */
export interface PollResult {
  delivery_day: string;
  control_area: string;
  /** Message version of the document. */
  version: number;
  platform_id: string;
  /**
   * `updated`: the status changed; `unchanged`; `failed`: the platform could not be asked (asked
   * again next tick); `stopped`: no longer asked (unknown to the platform, or the day is over).
   */
  outcome: "updated" | "unchanged" | "failed" | "stopped";
  tso_status?: TsoState;
  /** Why the poll failed, in words. */
  reason?: string;
}

/** What the poll needs of the app. */
export interface PollServices {
  kv: Deno.Kv;
  events: EventLog;
  clock: Clock;
  redactor?: TextRedactor;
  /** TLS client trusting the platform's CA (`MARKET_PLATFORM_CA_FILE`). */
  platformClient?: Deno.HttpClient;
}

/** Each status request waits at most this long (ms); the requests of a tick run together. */
const REQUEST_TIMEOUT_MS = 5_000;

/** The failure story of the status requests (lib/store/repeated_failures.ts). */
const POLL_SOURCE = {
  source: "platform_poll",
  label: "Asking the market platform about the schedule documents",
};

/** The warning that a document is no longer asked about, and why. */
async function stopped(
  svc: PollServices,
  p: PendingPlatformDocument,
  why: string,
  by: string,
): Promise<void> {
  await svc.events.append({
    kind: "orchestration_error",
    level: "warning",
    message:
      `Stopped asking the market platform about the schedule of ${p.delivery_day} for ${p.control_area} (version ${p.version}, submission ${p.platform_id}): ${why}; its status stays as it is.`,
    caller: by,
    delivery_day: p.delivery_day,
    data: { platform_id: p.platform_id, control_area: p.control_area },
  });
}

/**
 * Asks the platform once about every pending document and applies the answers.
 * @param by the caller, or `orchestrator`
 * @returns one result per pending document (none when nothing is pending or the platform is not
 *   configured)
 */
export async function pollPlatform(
  svc: PollServices,
  cfg: EffectiveConfig,
  by: string,
): Promise<PollResult[]> {
  if (!cfg.market_platform_url || !cfg.market_platform_api_key) return [];
  const pending = await pendingPlatformDocuments(svc.kv);
  const now = svc.clock.now();
  const results: PollResult[] = await Promise.all(pending.map(async (p): Promise<PollResult> => {
    const base = {
      delivery_day: p.delivery_day,
      control_area: p.control_area,
      version: p.version,
      platform_id: p.platform_id,
    };
    // A day over for more than a day (a correction: sent more than a day ago) gets no answer any
    // more: the polling ends, in words.
    const until = p.poll_until
      ? Date.parse(p.poll_until)
      : deliveryDay(p.delivery_day).end.epochMilliseconds + POLL_FOR_MS;
    if (until < now) {
      await dropPending(svc.kv, p.delivery_day, p.control_area);
      await stopped(
        svc,
        p,
        "its delivery day ended, and the document left, more than a day ago",
        by,
      );
      return { ...base, outcome: "stopped", reason: "delivery day over" };
    }
    try {
      const st = await fetchPlatformStatus({
        url: cfg.market_platform_url!,
        apiKey: cfg.market_platform_api_key!,
        timeoutMs: REQUEST_TIMEOUT_MS,
        client: svc.platformClient,
        redactor: svc.redactor,
      }, p.platform_id);
      if (st.state === "received") return { ...base, outcome: "unchanged", tso_status: "sent" };
      const applied = await recordAnswer(svc, {
        day: p.delivery_day,
        area: p.control_area,
        version: p.version,
        state: st.state,
        reason_code: st.reason_code,
        reason_text: st.reason_text,
        who: "the TSO (via the market platform)",
        source: `submission ${p.platform_id}`,
        data: { platform_id: p.platform_id },
      }, by);
      return {
        ...base,
        outcome: applied === "applied" ? "updated" : "unchanged",
        tso_status: st.state,
      };
    } catch (err) {
      if (!(err instanceof PlatformStatusError)) throw err;
      if (err.status === 404) {
        await dropPending(svc.kv, p.delivery_day, p.control_area);
        await stopped(svc, p, "the market platform does not know this submission (404)", by);
        return { ...base, outcome: "stopped", reason: err.message };
      }
      return { ...base, outcome: "failed", reason: err.message };
    }
  }));
  const failed = results.filter((r) => r.outcome === "failed");
  // Any document answered: the platform works (again).
  if (results.some((r) => r.outcome === "updated" || r.outcome === "unchanged")) {
    await reportRecovery(svc, POLL_SOURCE.source, null, by);
  }
  if (failed.length) {
    await reportFailure(svc, POLL_SOURCE, {
      kind: "orchestration_error",
      level: "error",
      message:
        `The market platform could not be asked about ${failed.length} of ${results.length} schedule document${
          results.length === 1 ? "" : "s"
        }: ${failed[0].reason}`,
      caller: by,
      data: { failed: failed.map((f) => f.platform_id) },
    });
  }
  return results;
}
