/**
 * Asking the market platform what became of one schedule document (docs/pipeline.md, "Schedules
 * to the TSO (Fahrplan)", the platform's lifecycle): `GET {url}/schedules/{submission_id}` with the
 * platform key raw in `authorization`, answered with the TSO's state of that document. One attempt
 * per call — the orchestrator asks again on its next tick — bounded by a timeout; the platform's
 * texts pass the redactor before they are quoted.
 * @module
 */
import { z } from "zod";
import { Redactor, type TextRedactor } from "../store/redactor.ts";
import { classifyFetchFailure } from "./fetch_failure.ts";
import { MAX_QUOTED_BODY } from "./market_platform.ts";

/** The TSO's state of one document as the platform reports it. */
export type PlatformState = "received" | "acknowledged" | "rejected" | "confirmed" | "anomaly";

/** States after which the platform's answer does not change any more. */
export const FINAL_PLATFORM_STATES: readonly PlatformState[] = ["rejected", "confirmed", "anomaly"];

/** The platform's answer to a status request (the fields the bridge reads). */
export interface PlatformStatus {
  submission_id: string;
  state: PlatformState;
  /** ENTSO-E reason code (e.g. A01, A02, A06, A28), when the TSO gave one. */
  reason_code: string | null;
  reason_text: string | null;
}

/** The status could not be read; `message` names the cause in words. */
export class PlatformStatusError extends Error {
  /** HTTP status of the platform's answer (`null`: not reachable, or no answer). */
  readonly status: number | null;
  constructor(message: string, status: number | null = null) {
    super(message);
    this.name = "PlatformStatusError";
    this.status = status;
  }
}

/** The platform's status answer (docs/pipeline.md); other fields are ignored. */
const StatusAnswer = z.object({
  state: z.enum(["received", "acknowledged", "rejected", "confirmed", "anomaly"]),
  reason_code: z.string().nullish(),
  reason_text: z.string().nullish(),
});

/**
 * Reads the status of submission `id`.
 * @param target.timeoutMs how long the one request may take (ms, real network time)
 * @throws {PlatformStatusError} when the platform is not reachable, answers non-2xx, or answers
 *   something that is not a status (the message quotes it, masked and cut)
 */
export async function fetchPlatformStatus(
  target: {
    url: string;
    apiKey: string;
    timeoutMs: number;
    client?: Deno.HttpClient;
    redactor?: TextRedactor;
  },
  id: string,
): Promise<PlatformStatus> {
  const redactor = target.redactor ?? new Redactor([target.apiKey]);
  const url = `${target.url.replace(/\/+$/, "")}/schedules/${encodeURIComponent(id)}`;
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { "authorization": target.apiKey, "accept": "application/json" },
      signal: AbortSignal.timeout(target.timeoutMs),
      client: target.client,
    });
  } catch (err) {
    const reason = redactor.text(classifyFetchFailure(err).reason, MAX_QUOTED_BODY);
    throw new PlatformStatusError(`market platform not reachable: ${reason}`);
  }
  const text = await res.text();
  const quoted = () => redactor.text(text, MAX_QUOTED_BODY);
  if (!res.ok) {
    throw new PlatformStatusError(
      `market platform answered ${res.status} for submission ${id}: ${quoted()}`,
      res.status,
    );
  }
  let body: z.infer<typeof StatusAnswer>;
  try {
    body = StatusAnswer.parse(JSON.parse(text));
  } catch {
    throw new PlatformStatusError(
      `market platform answered no known state for ${id}: ${quoted()}`,
    );
  }
  const str = (v: string | null | undefined) => v ? redactor.text(v, 500) : null;
  return {
    submission_id: id,
    state: body.state,
    reason_code: str(body.reason_code),
    reason_text: str(body.reason_text),
  };
}
