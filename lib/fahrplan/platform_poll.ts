/**
 * The TSO's answers through the market platform (docs/fahrplan.md): with `schedule_channel=platform` and ESS or CIM documents, each document's
 * submission id is pending (`./tso_status.ts`) until the platform reports a final state
 * (`rejected`, `confirmed`, `anomaly`). Every orchestrator tick, whatever its state, asks
 * `GET {market_platform_url}/schedules/{id}` once per pending document and applies what changed
 * exactly as an answer file from the inbox (`./record_answer.ts`). A platform that cannot be asked
 * leaves every status as it is and is one `orchestration_error` event per tick naming the cause.
 * @module
 */
import type { Clock } from "../clock.ts";
import type { EffectiveConfig } from "../config/fields.ts";
import { fetchPlatformStatus, PlatformStatusError } from "../adapters/platform_status.ts";
import type { EventLog } from "../store/events.ts";
import type { TextRedactor } from "../store/redactor.ts";
import { recordAnswer } from "./record_answer.ts";
import { pendingPlatformDocuments, type TsoState } from "./tso_status.ts";

/** What one poll found for one document. */
export interface PollResult {
  delivery_day: string;
  control_area: string;
  /** Message version of the document. */
  version: number;
  platform_id: string;
  /** `updated`: the status changed; `unchanged`; `failed`: the platform could not be asked. */
  outcome: "updated" | "unchanged" | "failed";
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

/** Each status request waits at most this long (ms). */
const REQUEST_TIMEOUT_MS = 5_000;

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
  const results: PollResult[] = [];
  for (const p of pending) {
    const base = {
      delivery_day: p.delivery_day,
      control_area: p.control_area,
      version: p.version,
      platform_id: p.platform_id,
    };
    try {
      const st = await fetchPlatformStatus({
        url: cfg.market_platform_url,
        apiKey: cfg.market_platform_api_key,
        timeoutMs: REQUEST_TIMEOUT_MS,
        client: svc.platformClient,
        redactor: svc.redactor,
      }, p.platform_id);
      if (st.state === "received") {
        results.push({ ...base, outcome: "unchanged", tso_status: "sent" });
        continue;
      }
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
      results.push({
        ...base,
        outcome: applied === "applied" ? "updated" : "unchanged",
        tso_status: st.state,
      });
    } catch (err) {
      if (!(err instanceof PlatformStatusError)) throw err;
      results.push({ ...base, outcome: "failed", reason: err.message });
    }
  }
  const failed = results.filter((r) => r.outcome === "failed");
  if (failed.length) {
    await svc.events.append({
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
