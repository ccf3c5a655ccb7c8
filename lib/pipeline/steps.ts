/**
 * Runs one pipeline step for one delivery day and records its event (docs/pipeline.md, "Events"): used by the
 * manual step routes and by the orchestrator, so both behave and report the same way.
 * A failure becomes an `orchestration_error` event (the platform's error body quoted as text;
 * a repeat of the same failure is counted on it, lib/store/repeated_failures.ts) and is rethrown.
 * @module
 */
import type { StepServices } from "../context.ts";
import { DomainError } from "../domain/errors.ts";
import { readOrchestratorState } from "../orchestrator/state.ts";
import { recordFailure } from "./day_state.ts";
import { aggregateDay } from "./aggregate.ts";
import { generateForecasts } from "./generate.ts";
import { publishDay } from "./publish.ts";
import { submitDay, SubmitFailed } from "./submit.ts";
import type { StepResult } from "../wire/steps.ts";
import { reportFailure, reportRecovery } from "../store/repeated_failures.ts";

export type { RunnableStep } from "./step_table.ts";
import { type RunnableStep, stepRow } from "./step_table.ts";

/**
 * Runs `step` for `day` as `by` (a caller name or `orchestrator`). A failure that repeats the
 * last one of the step and day is counted on its first event, and the first success after
 * failures stores one `orchestration_recovered` event (lib/store/repeated_failures.ts).
 * @returns the step's result: the answer of its route (`lib/wire/steps.ts`)
 * @throws {DomainError} the step's refusal or failure (named, with its code); other errors as
 *   they are
 */
export async function runStep(
  ctx: StepServices,
  day: string,
  step: RunnableStep,
  by: string,
): Promise<StepResult> {
  const result = await runStepOnce(ctx, day, step, by);
  await reportRecovery(ctx, `step:${step}`, day, by);
  return result;
}

async function runStepOnce(
  ctx: StepServices,
  day: string,
  step: RunnableStep,
  by: string,
): Promise<StepResult> {
  const cfg = await ctx.config.effective();
  const nowMs = ctx.clock.now();
  try {
    switch (step) {
      case "forecast": {
        const opts = {
          by,
          nowMs,
          region: cfg.holiday_region,
          learned: {
            horizonDays: cfg.orchestrator_horizon_days,
            gateClosureLocalTime: cfg.gate_closure_local_time,
            // A second thread for the refit where the store is a file a second handle opens.
            kvPath: ctx.passOffload?.kvPath,
          },
        };
        const r = ctx.passOffload
          ? await ctx.passOffload.forecast(day, opts)
          : await generateForecasts(ctx.kv, day, opts);
        await ctx.events.append({
          kind: stepRow("forecast").event,
          message: `Generated profile forecasts for ${day}: ${
            r.generated ? `${r.generated} changed` : `${r.unchanged} unchanged`
          }, ${r.customer} with customer forecast, ${
            learnedText(r)
          }${r.without_profile} without profile or forecast${
            // Input arrived while the step read: it stays stale, the next pass runs it again.
            r.day_input_version > r.input_version
              ? ` (input version ${r.input_version}; newer input arrived meanwhile, the day is at ${r.day_input_version})`
              : ""}`,
          caller: by,
          delivery_day: day,
          data: { ...r },
        });
        return { ...r };
      }
      case "aggregate": {
        const opts = {
          by,
          nowMs,
          activeAreas: cfg.active_control_areas,
          region: cfg.holiday_region,
        };
        const agg = ctx.passOffload
          ? await ctx.passOffload.aggregate(day, opts)
          : await aggregateDay(ctx.kv, day, opts);
        const missing = agg.counts.missing_forecast;
        await ctx.events.append({
          kind: stepRow("aggregate").event,
          // Market locations left without a forecast: the operator must see it, not just read it.
          level: missing > 0 ? "warning" : "info",
          message:
            `Aggregated ${day} (version ${agg.version}): ${agg.counts.market_locations} market locations in ${
              Object.keys(agg.areas).length
            } control areas; ${agg.counts.inactive_area} in inactive areas ignored, ${agg.counts.missing_forecast} without forecast`,
          caller: by,
          delivery_day: day,
          data: { version: agg.version, counts: agg.counts },
        });
        return { delivery_day: day, version: agg.version, counts: agg.counts };
      }
      case "publish": {
        const r = await publishDay(ctx.kv, day, cfg, { by, nowMs, redactor: ctx.redactor });
        await ctx.events.append({
          kind: stepRow("publish").event,
          message: `Published ${r.file} (${r.rows} quarter-hours) to ${
            r.target === "sftp" ? "sFTP" : "the local outbox"
          }: ${r.location}`,
          caller: by,
          delivery_day: day,
          data: { ...r },
        });
        return { ...r };
      }
      case "submit": {
        const r = await submitDay(ctx.kv, day, cfg, {
          by,
          clock: ctx.clock,
          client: ctx.platformClient,
          backoffBaseMs: ctx.settings.platformBackoffMs,
          redactor: ctx.redactor,
        });
        if (r.documents?.length === 0 && r.unchanged?.length) {
          // Intraday: nothing open changed enough in any area; no version left (docs/intraday.md).
          await ctx.events.append({
            kind: stepRow("submit").event,
            message: `No new schedule version of ${day} (aggregate version ${r.version}): ${
              r.unchanged.map((u) => `${u.control_area}: ${u.reason}`).join("; ")
            }`,
            caller: by,
            delivery_day: day,
            data: { version: r.version, documents: [], unchanged: r.unchanged },
          });
          return { ...r };
        }
        if ("channel" in r) {
          await ctx.events.append({
            kind: stepRow("submit").event,
            message:
              `Handed over the schedules of ${day} (aggregate version ${r.version}) as ${r.format.toUpperCase()} files for the TSOs: ${
                r.documents.map((d) => `${d.file} (${d.control_area})`).join(", ")
              }`,
            caller: by,
            delivery_day: day,
            data: {
              version: r.version,
              channel: "files",
              format: r.format,
              documents: r.documents,
            },
          });
          return { ...r };
        }
        if (r.sent) {
          const what = r.documents
            ? ` as ${r.format.toUpperCase()} documents (${
              r.documents.map((d) => `${d.file} for ${d.control_area}`).join(", ")
            })`
            : "";
          await ctx.events.append({
            kind: stepRow("submit").event,
            message:
              `Submitted schedules of ${day} (version ${r.version}, ${r.idempotency_key}) to the market platform${what}: ${r.receipt.status} after ${r.receipt.attempts} attempt${
                r.receipt.attempts === 1 ? "" : "s"
              }`,
            caller: by,
            delivery_day: day,
            data: {
              version: r.version,
              idempotency_key: r.idempotency_key,
              status: r.receipt.status,
              receipt: r.receipt.body,
              ...(r.documents ? { format: r.format, documents: r.documents } : {}),
            },
          });
        }
        return { ...r };
      }
    }
  } catch (err) {
    const platform = err instanceof SubmitFailed ? err.platform : undefined;
    // Another caller submitting the same version right now, and a step asked for after gate
    // closure, are no failures of the step (nothing will try it again; the event says it).
    if (
      !(err instanceof DomainError &&
        (err.code === "ERR_SUBMISSION_IN_FLIGHT" || err.code === "ERR_GATE_CLOSED"))
    ) {
      await recordFailure(ctx.kv, day, stepRow(step).field, {
        at: new Date(nowMs).toISOString(),
        message: ctx.redactor.text(`${step} failed: ${(err as Error).message}`, 1000),
        next_attempt_at: await nextAttemptAt(ctx, nowMs),
      });
    }
    // A sentence, and the subject of the recovery sentence ("… works again after 3 failures").
    const label = `${stepRow(step).doing} of ${day}`;
    await reportFailure(ctx, { source: `step:${step}`, label }, {
      kind: "orchestration_error",
      // A refusal (gate closure, nothing to publish, not configured) is a warning; a failure an error.
      level: err instanceof DomainError && err.outcome !== "failed" ? "warning" : "error",
      message: `${label} failed: ${(err as Error).message}`,
      caller: by,
      delivery_day: day,
      data: {
        step,
        ...(err instanceof DomainError ? { code: err.code } : {}),
        ...(platform
          ? {
            platform_status: platform.status,
            platform_body: platform.body,
            attempts: platform.attempts,
          }
          : {}),
      },
    });
    throw err;
  }
}

/** "3 with learned forecast, 1 with corrected customer forecast, " (empty without either). */
function learnedText(r: { learned: number; customer_corrected: number }): string {
  return (r.learned ? `${r.learned} with learned forecast, ` : "") +
    (r.customer_corrected ? `${r.customer_corrected} with corrected customer forecast, ` : "");
}

/**
 * When the orchestrator next tries a failed step: the start of the next minute while it is
 * running (its cron ticks every minute), `null` while it is stopped.
 */
async function nextAttemptAt(ctx: StepServices, nowMs: number): Promise<string | null> {
  const state = await readOrchestratorState(ctx.kv, ctx.settings.orchestratorAutostart);
  if (state.state !== "running") return null;
  return new Date((Math.floor(nowMs / 60_000) + 1) * 60_000).toISOString();
}
