/**
 * One orchestrator pass (docs/orchestrator.md): every delivery day from today up to
 * the horizon in which a quarter-hour is still open, the steps it needs, in order; and the answer
 * files the pass's inbox import moved to `rejected/`.
 * @module
 */
import type { StepServices } from "../context.ts";
import { addDays, deliveryDay, localDayOf } from "../domain/delivery_day.ts";
import { frozenCount, gateClosure } from "../domain/deadlines.ts";
import type { ImportResult } from "../fahrplan/inbox.ts";
import { readDay } from "../pipeline/day_state.ts";
import { listMarketLocations } from "../pipeline/market_locations.ts";
import { masterDataVersion } from "../pipeline/master_data.ts";
import { type RunnableStep, runStep } from "../pipeline/steps.ts";
import { plannedSteps, stepNeeded } from "./step_selection.ts";
import type { PassReport } from "../wire/orchestrator.ts";

/** What one pass did, per day, and the inbox files its import rejected (`lib/wire/orchestrator.ts`). */
export type { PassReport };

/** True when `A` and `B` are the same type. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// The wire's step names are the step table's: the compiler refuses this line when they differ.
const _sameStepNames: Same<RunnableStep, PassReport["days"][number]["ran"][number]> = true;

/** The rejected files among an inbox import's results (for {@link PassReport.rejected_files}). */
export function rejectedIn(results: readonly ImportResult[]): PassReport["rejected_files"] {
  const out = results.filter((r) => r.outcome === "rejected")
    .map((r) => ({ file: r.file, reason: r.reason ?? "no reason given" }));
  return out.length ? out : undefined;
}

/** Which steps a day needs now, in order (the decision: {@link plannedSteps}). */
async function neededSteps(kv: Deno.Kv, day: string, master: number): Promise<RunnableStep[]> {
  return plannedSteps((await readDay(kv, day)).value, master);
}

/** True when the step must run given the state read just before it ({@link stepNeeded}). */
async function stillNeeded(kv: Deno.Kv, day: string, step: RunnableStep): Promise<boolean> {
  return stepNeeded((await readDay(kv, day)).value, step);
}

/**
 * Runs one pass: every open day up to the horizon, the steps it needs, in order.
 * @param by `orchestrator` for scheduled passes, else the caller's name
 */
export async function runPass(ctx: StepServices, by: string): Promise<PassReport> {
  const now = ctx.clock.now();
  const cfg = await ctx.config.effective();
  const report: PassReport = { started_at: new Date(now).toISOString(), days: [] };
  const master = await masterDataVersion(ctx.kv);
  const hasLocations = (await listMarketLocations(ctx.kv, { limit: 1 })).length > 0;
  const today = localDayOf(now);
  // The running day too (docs/intraday.md, "Orchestrator"): its schedules live until no
  // quarter-hour is open any more; the JSON market submission of a day past gate closure is
  // skipped without a word.
  const jsonOnly = cfg.schedule_channel !== "files" && cfg.schedule_format === "json";
  for (let i = 0; i <= cfg.orchestrator_horizon_days; i++) {
    const day = addDays(today, i);
    const d = deliveryDay(day);
    if (frozenCount(d, now, cfg.intraday_lead_minutes) >= d.quarterHours.length) continue;
    const marketClosed = gateClosure(d, cfg.gate_closure_local_time).epochMilliseconds <= now;
    const state = (await readDay(ctx.kv, day)).value;
    if (!hasLocations && !state) continue; // no market locations, no forecasts
    const entry: PassReport["days"][number] = { delivery_day: day, ran: [] };
    for (const step of await neededSteps(ctx.kv, day, master)) {
      if (step === "submit" && marketClosed && jsonOnly) continue;
      if (!(await stillNeeded(ctx.kv, day, step))) continue;
      try {
        await runStep(ctx, day, step, by);
        entry.ran.push(step);
      } catch (err) {
        entry.failed = { step, error: (err as Error).message };
        break;
      }
    }
    if (entry.ran.length || entry.failed) report.days.push(entry);
  }
  return report;
}
