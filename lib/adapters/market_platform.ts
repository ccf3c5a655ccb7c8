/**
 * Client of the external market-platform API (docs/pipeline.md, "Submit"): `POST {url}/schedules` over
 * HTTPS with the platform key raw in the `authorization` header and an `idempotency-key`.
 * 5xx answers and network errors are retried with exponential backoff inside the time budget
 * ({@link retry}, on the caller's clock);
 * 4xx answers and TLS handshake failures (untrusted certificate, no TLS on the other side; see
 * {@link classifyFetchFailure}) are final for the attempt. Every quoted answer and cause passes
 * the redactor (masked first, then cut to {@link MAX_QUOTED_BODY} characters), so neither the key
 * nor any other configured secret is part of an error message (docs/access-control.md).
 * @module
 */
import { type Clock, type Sleep, systemClock } from "../clock.ts";
import { retry, RetryGaveUp } from "../retry.ts";
import { Redactor, type TextRedactor } from "../store/redactor.ts";
import { classifyFetchFailure } from "./fetch_failure.ts";

/** A schedule submission as sent (JSON). */
export interface SchedulePayload {
  delivery_day: string;
  aggregate_version: number;
  sender_eic: string | null;
  balancing_group: string | null;
  /** ISO 8601 duration of one position. */
  resolution: "PT15M";
  unit: "MW";
  time_interval: { start: string; end: string };
  schedules: { control_area: string; quantities: number[] }[];
}

/** One schedule document as sent (ESS or CIM XML, `content-type: application/xml`). */
export interface XmlSchedule {
  xml: string;
}

/** What the platform answered with 2xx. */
export interface Receipt {
  status: number;
  body: unknown;
  attempts: number;
  idempotency_key: string;
}

/**
 * The platform refused, could not be reached within the budget, or failed the TLS handshake.
 * `message` names the cause: the platform's answer, the network error's deepest cause (e.g.
 * `tcp connect error: Connection refused (os error 111)`) or the TLS failure (e.g.
 * `invalid peer certificate: UnknownIssuer`).
 */
export class MarketPlatformError extends Error {
  readonly code = "ERR_MARKET_PLATFORM";
  /** HTTP status of the last answer, or `null` for a network error, TLS failure or timeout. */
  readonly status: number | null;
  /**
   * The platform's error body, or the cause of a network error or TLS failure, as text (quote it
   * as text, never as markup).
   */
  readonly body: string;
  /** Attempts made, including the last one. */
  readonly attempts: number;
  /**
   * Whether trying again later may succeed: false for a 4xx (the platform refused this
   * submission) and for a TLS failure (it repeats until a certificate or the configuration
   * changes); true for 5xx and network errors that outlasted the budget.
   */
  readonly retriable: boolean;
  constructor(
    message: string,
    status: number | null,
    body: string,
    attempts: number,
    retriable: boolean,
  ) {
    super(message);
    this.name = "MarketPlatformError";
    this.status = status;
    this.body = body;
    this.attempts = attempts;
    this.retriable = retriable;
  }
}

/** How to reach the platform. */
export interface PlatformTarget {
  /** Base URL, https. */
  url: string;
  /** Sent raw in `authorization`. */
  apiKey: string;
  /** Overall budget including retries, seconds (on `clock`). */
  timeoutSeconds: number;
  /**
   * A harder limit than `timeoutSeconds`, in ms from now on `clock` (e.g. the time left until
   * gate closure): no attempt starts and no backoff waits past it. Default: no extra limit.
   */
  stopAfterMs?: number;
  /** Says why `stopAfterMs` applies, for the error message (e.g. `before gate closure`). */
  stopReason?: string;
  /** TLS client trusting extra CAs (tests, the simulator). */
  client?: Deno.HttpClient;
  /** For tests: shorter backoff base (default 500 ms). */
  backoffBaseMs?: number;
  /**
   * Time source of the budget and the stop (default: the system clock); the backoff waits with
   * its `sleep`. Each request's own timeout stays real network time.
   */
  clock?: Clock;
  /** How the backoff waits, in ms (default: `clock.sleep`, else real time). */
  sleep?: Sleep;
  /**
   * Masks secrets in the platform's answers before they are cut and quoted (default: masks
   * `apiKey` only). Pass the app's redactor so that every configured secret is masked.
   */
  redactor?: TextRedactor;
}

/** Longest quote of a platform's error body in a message or event, in characters. */
export const MAX_QUOTED_BODY = 2000;

/**
 * Sends one submission: the JSON payload, or one XML schedule document.
 * @throws {MarketPlatformError} on a 4xx or a TLS handshake failure (both final, not retried,
 *   `retriable: false`: the same request would fail the same way; the next orchestrator tick tries
 *   again), or when 5xx/network errors outlast the budget (`retriable: true`)
 */
export async function sendSchedules(
  target: PlatformTarget,
  payload: SchedulePayload | XmlSchedule,
  idempotencyKey: string,
): Promise<Receipt> {
  const redactor = target.redactor ?? new Redactor([target.apiKey]);
  const clock = target.clock ?? systemClock;
  const budgetMs = target.timeoutSeconds * 1000;
  const limited = target.stopAfterMs !== undefined && target.stopAfterMs < budgetMs;
  const url = `${target.url.replace(/\/+$/, "")}/schedules`;
  const xml = "xml" in payload;
  let attempts = 0;
  let last: MarketPlatformError | undefined;
  /** One POST; throws a retriable {@link MarketPlatformError} for a 5xx or a network error. */
  const once = async (remaining: number): Promise<Receipt> => {
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: {
          "authorization": target.apiKey,
          "idempotency-key": idempotencyKey,
          "content-type": xml ? "application/xml" : "application/json",
          "accept": "application/json",
        },
        body: xml ? payload.xml : JSON.stringify(payload),
        signal: AbortSignal.timeout(Math.max(1, Math.min(remaining, 15_000))),
        client: target.client,
      });
      const text = await res.text();
      if (res.ok) {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch { /* keep text */ }
        return { status: res.status, body, attempts, idempotency_key: idempotencyKey };
      }
      // Masked first, cut after: a secret that straddles the cut cannot survive in part.
      const quoted = redactor.text(text, MAX_QUOTED_BODY);
      if (res.status < 500) {
        throw new MarketPlatformError(
          `market platform refused the submission with ${res.status}: ${quoted}`,
          res.status,
          quoted,
          attempts,
          false,
        );
      }
      last = new MarketPlatformError(
        `market platform answered ${res.status}: ${quoted}`,
        res.status,
        quoted,
        attempts,
        true,
      );
    } catch (err) {
      if (err instanceof MarketPlatformError) throw err;
      const failure = classifyFetchFailure(err);
      const reason = redactor.text(failure.reason, MAX_QUOTED_BODY);
      if (failure.kind === "tls") {
        throw new MarketPlatformError(
          `market platform TLS handshake failed: ${reason} (${
            attempts === 1 ? "1 attempt" : `attempt ${attempts}`
          }, not retried)`,
          null,
          reason,
          attempts,
          false,
        );
      }
      const cutAtDeadline = (err as Error).name === "TimeoutError" && remaining <= 15_000;
      if (cutAtDeadline && last) {
        // Our own deadline (budget or gate closure) cut this attempt short: what the platform
        // last answered is what the operator needs to read, not our abort.
        last = new MarketPlatformError(
          `${last.message}; the last attempt was cut off at the deadline`,
          last.status,
          last.body,
          attempts,
          true,
        );
      } else {
        last = new MarketPlatformError(
          `market platform not reachable: ${reason}`,
          null,
          reason,
          attempts,
          true,
        );
      }
    }
    throw last;
  };
  try {
    return await retry(({ attempt, remainingMs }) => {
      attempts = attempt;
      return once(remainingMs);
    }, {
      deadlineMs: budgetMs,
      stopAtMs: target.stopAfterMs === undefined ? undefined : clock.now() + target.stopAfterMs,
      baseMs: target.backoffBaseMs ?? 500,
      maxMs: 8_000,
      jitter: 0.25,
      // 5xx and network errors; a refusal (4xx) or a TLS failure is final.
      retryOn: (err) => err instanceof MarketPlatformError && err.retriable,
      clock,
      sleep: target.sleep,
    });
  } catch (err) {
    if (!(err instanceof RetryGaveUp)) throw err;
    const n = err.attempts;
    const within = limited
      ? `${(Math.max(0, target.stopAfterMs!) / 1000).toFixed(1)} s ${
        target.stopReason ?? "(time limit)"
      }`
      : `${target.timeoutSeconds} s`;
    throw new MarketPlatformError(
      `${last?.message ?? "market platform not reached"} (gave up after ${n} attempt${
        n === 1 ? "" : "s"
      } within ${within})`,
      last?.status ?? null,
      last?.body ?? "",
      n,
      true,
    );
  }
}
