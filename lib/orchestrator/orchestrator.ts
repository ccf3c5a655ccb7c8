/**
 * The orchestrator (docs/pipeline.md, "Orchestrator"). A tick (from `Deno.cron`, every minute) is a no-op
 * while the state is `stopped`; while `running` it takes the lease of that minute in KV
 * (`["leases", "orchestrator", <minute>]`, created with a null-versionstamp check) so that exactly
 * one replica runs a pass per minute, then runs a pass.
 *
 * A pass looks at every delivery day from today up to the horizon in which a quarter-hour is still
 * open (beyond the lead time) and that has market locations or forecasts, and runs what is
 * missing or stale, in order:
 * forecast → aggregate → publish → submit. A failing step ends that day's pass (the error is an
 * `orchestration_error` event; while it repeats, the repeats are counted on that event and its
 * end is one `orchestration_recovered` event, lib/store/repeated_failures.ts) and is retried on
 * the next tick.
 * @module
 */
import type { ServiceContext, StepServices } from "../context.ts";
import { addDays, deliveryDay, localDayOf } from "../domain/delivery_day.ts";
import { frozenCount, gateClosure } from "../domain/deadlines.ts";
import { readDay } from "../pipeline/day_state.ts";
import { listMarketLocations } from "../pipeline/market_locations.ts";
import { masterDataVersion } from "../pipeline/master_data.ts";
import { type RunnableStep, runStep } from "../pipeline/steps.ts";
import { PassRunning } from "../domain/errors.ts";
import { retryKv } from "../store/kv.ts";
import type { Sleep } from "../clock.ts";
import type { Settings } from "../settings.ts";
import { readOrchestratorState } from "./state.ts";
import { plannedSteps, stepNeeded } from "./step_selection.ts";
import { KEYS } from "../store/keys.ts";
import type { LastPass } from "../wire/orchestrator.ts";
import { type PassLog, passOutcome } from "./passes.ts";
import { importInbox } from "../fahrplan/inbox.ts";
import { importActualsInbox } from "../settlement/inbox.ts";
import { pollPlatform } from "../fahrplan/platform_poll.ts";
import { reportFailure, reportRecovery } from "../store/repeated_failures.ts";
import type { FinishedPass } from "./pass_history.ts";
import type { Pruner, PruneReport } from "../retention/pruner.ts";

/**
 * What the orchestrator uses of the app's services: what its steps use ({@link StepServices}),
 * the process log (when even the error event cannot be stored) and `ORCHESTRATOR_AUTOSTART`.
 */
export interface OrchestratorServices extends StepServices, Pick<ServiceContext, "log"> {
  settings: Pick<Settings, "orchestratorAutostart" | "platformBackoffMs">;
}

/** What one pass did, per day. */
export interface PassReport {
  started_at: string;
  days: {
    delivery_day: string;
    ran: RunnableStep[];
    failed?: { step: RunnableStep; error: string };
  }[];
}

/** Outcome of a tick. */
export type TickOutcome =
  | { ran: false; reason: "stopped" | "not_leader" | "busy" }
  | { ran: false; reason: "failed"; error: string }
  | { ran: true; report: PassReport };

/** Which steps a day needs now, in order (the decision: {@link plannedSteps}). */
async function neededSteps(kv: Deno.Kv, day: string, master: number): Promise<RunnableStep[]> {
  return plannedSteps((await readDay(kv, day)).value, master);
}

/** True when the step must run given the state read just before it ({@link stepNeeded}). */
async function stillNeeded(kv: Deno.Kv, day: string, step: RunnableStep): Promise<boolean> {
  return stepNeeded((await readDay(kv, day)).value, step);
}

/**
 * The orchestrator of one app: scheduled ticks and manual passes go through one guard, so a
 * process never runs two passes at once (and two apps in one process do not share it).
 */
export class Orchestrator {
  #ctx: OrchestratorServices;
  #passes: PassLog | undefined;
  /** The pass under way in this app, with who started it and when. */
  #running: { by: string; since: string } | undefined;
  #onPass: ((pass: FinishedPass) => Promise<unknown>) | undefined;
  #pruner: Pruner | undefined;
  #lastPrune: PruneReport | undefined;
  #leaseSleep: Sleep | undefined;

  /**
   * @param ctx the app's services (those of {@link OrchestratorServices})
   * @param passes where every finished pass is recorded (its health shows in the status)
   * @param opts `onPass`: told every finished pass with its days (the pass history,
   *   `lib/orchestrator/pass_history.ts`); a failure there is logged, never the pass's.
   *   `pruner`: retention, run at the end of every tick (docs/retention.md).
   *   `leaseSleep`: how the lease's backoff waits while the store is locked, in ms (default: real
   *   time, as {@link retryKv}; tests pass a fake one)
   */
  constructor(
    ctx: OrchestratorServices,
    passes?: PassLog,
    opts: {
      onPass?: (pass: FinishedPass) => Promise<unknown>;
      pruner?: Pruner;
      leaseSleep?: Sleep;
    } = {},
  ) {
    this.#ctx = ctx;
    this.#leaseSleep = opts.leaseSleep;
    this.#passes = passes;
    this.#onPass = opts.onPass;
    this.#pruner = opts.pruner;
  }

  /** What retention did in this app's last tick (`undefined` before the first). */
  get lastPrune(): PruneReport | undefined {
    return this.#lastPrune;
  }

  /**
   * One scheduled tick: no-op when stopped; otherwise the minute's lease, then a pass.
   *
   * Never throws: a failure outside the steps (KV unavailable, the lease unobtainable after the
   * bounded retries of {@link retryKv}) becomes an `orchestration_error` event — and a process-log
   * line should even that append fail — and the tick reports `{ran: false, reason: "failed"}`;
   * the next tick tries again.
   * @param holder a name for this replica (stored in the lease)
   */
  async tick(holder: string): Promise<TickOutcome> {
    const ctx = this.#ctx;
    await this.#importAnswers();
    // One story for every replica: the same cause (KV down) fails them all alike.
    const source = "orchestrator_tick";
    try {
      const outcome = await this.#tickOnce(holder);
      await reportRecovery(ctx, source, null, "orchestrator");
      return outcome;
    } catch (err) {
      await this.#tickFailed(holder, source, err);
      return { ran: false, reason: "failed", error: (err as Error).message };
    } finally {
      await this.#prune(holder);
    }
  }

  /**
   * Retention's bounded share of the tick, whatever the orchestrator's state (it touches only
   * days long past). Never throws: a failure is an `orchestration_error` event.
   */
  async #prune(holder: string): Promise<void> {
    if (!this.#pruner) return;
    const report = await this.#pruner.run(holder).catch((err): PruneReport => ({
      ran: false,
      days_pruned: [],
      events_archived: 0,
      steps: 0,
      error: (err as Error).message,
    }));
    this.#lastPrune = report;
    // A repeated retention failure is one story (docs/pipeline.md, "Repeated failures").
    const source = "retention";
    if (report.error) {
      await reportFailure(this.#ctx, { source, label: "Retention (archive and pruning)" }, {
        kind: "orchestration_error",
        level: "error",
        message: `Retention (archive and pruning) failed: ${report.error}`,
        caller: "orchestrator",
        data: { replica: holder },
      }).catch((e) => this.#ctx.log.error("orchestration_error", "retention failed", e));
    } else if (report.ran) {
      await reportRecovery(this.#ctx, source, null, "orchestrator");
    }
  }

  /** Records a failed tick as an event (or a process-log line should that fail too). */
  async #tickFailed(holder: string, source: string, err: unknown): Promise<void> {
    const ctx = this.#ctx;
    const message = `The orchestrator tick of ${holder} failed: ${(err as Error).message}`;
    try {
      await reportFailure(ctx, { source, label: "The orchestrator tick" }, {
        kind: "orchestration_error",
        level: "error",
        message,
        caller: "orchestrator",
        data: { replica: holder },
      });
    } catch (appendErr) {
      ctx.log.error(
        "orchestration_error",
        `${message} — and the event could not be stored`,
        appendErr,
      );
    }
  }

  /**
   * Imports the TSO's answers waiting in the inbox and asks the market platform about the
   * documents it took whose state is not final, whatever the orchestrator's state (CNFs
   * arrive also after gate closure). Never throws: a failure is an `orchestration_error` event.
   */
  async #importAnswers(): Promise<void> {
    const ctx = this.#ctx;
    // Read once for both; a failure to read it is each task's failure, told once per task.
    const cfg = ctx.config.effective();
    cfg.catch(() => {});
    const tasks = [
      [
        "answers_import",
        "Importing the TSO answers",
        async () => importInbox(ctx, await cfg, "orchestrator"),
      ],
      [
        "answers_platform",
        "Asking the market platform for the TSO answers",
        async () => pollPlatform(ctx, await cfg, "orchestrator"),
      ],
      [
        "actuals_import",
        "Importing actuals and imbalance prices from the actuals inbox",
        async () => importActualsInbox(ctx, await cfg, "orchestrator"),
      ],
    ] as const;
    for (const [source, what, task] of tasks) {
      try {
        await task();
        await reportRecovery(ctx, source, null, "orchestrator");
      } catch (err) {
        await reportFailure(ctx, { source, label: what }, {
          kind: "orchestration_error",
          level: "error",
          message: `${what} failed: ${(err as Error).message}`,
          caller: "orchestrator",
        }).catch((e) => ctx.log.error("orchestration_error", `${what} failed`, e));
      }
    }
  }

  /**
   * One pass now, also while stopped (the operator's override of `POST /v1/orchestrate`); like a
   * tick it first imports the TSO's answers (inbox, market platform).
   * @param by the caller's name
   * @throws {PassRunning} while a pass (scheduled or manual) is under way in this app
   */
  async runNow(by: string): Promise<PassReport> {
    if (this.#running) {
      throw new PassRunning(
        `An orchestrator pass started by ${this.#running.by} at ${this.#running.since} is still running; try again when it has finished.`,
      );
    }
    return await this.#guarded(by, async () => {
      await this.#importAnswers();
      return await runPass(this.#ctx, by);
    });
  }

  /**
   * Runs `fn` as the one pass of this app. The guard is taken synchronously, before anything
   * waits, so no other pass can start in between (`claimed`: the caller took it already).
   */
  async #guarded(
    by: string,
    fn: () => Promise<PassReport>,
    claimed?: { by: string; since: string },
  ): Promise<PassReport> {
    const startedAt = claimed?.since ?? new Date(this.#ctx.clock.now()).toISOString();
    this.#running = claimed ?? { by, since: startedAt };
    try {
      const report = await fn();
      await this.#record(by, startedAt, passOutcome(report), { days: report.days });
      return report;
    } catch (err) {
      await this.#record(by, startedAt, { outcome: "failed", steps_run: 0, steps_failed: 0 }, {
        error: (err as Error).message,
      });
      throw err;
    } finally {
      this.#running = undefined;
    }
  }

  /** Records a finished pass; a failure to record is logged, never the pass's failure. */
  async #record(
    by: string,
    startedAt: string,
    result: Pick<LastPass, "outcome" | "steps_run" | "steps_failed">,
    detail: Pick<FinishedPass, "days" | "error"> = {},
  ): Promise<void> {
    const pass: LastPass = {
      started_at: startedAt,
      finished_at: new Date(this.#ctx.clock.now()).toISOString(),
      by,
      ...result,
    };
    try {
      await this.#onPass?.({ ...pass, ...detail });
    } catch (err) {
      this.#ctx.log.error("orchestration_error", "the pass could not be added to the history", err);
    }
    if (!this.#passes) return;
    try {
      await this.#passes.record(pass);
    } catch (err) {
      this.#ctx.log.error("orchestration_error", "the pass could not be recorded", err);
    }
  }

  async #tickOnce(holder: string): Promise<TickOutcome> {
    const ctx = this.#ctx;
    const state = await readOrchestratorState(ctx.kv, ctx.settings.orchestratorAutostart);
    if (state.state !== "running") return { ran: false, reason: "stopped" };
    if (this.#running) return { ran: false, reason: "busy" };
    // Taken before the lease is awaited: a manual pass asked for meanwhile is refused, not run
    // beside this one.
    const claim = { by: "orchestrator", since: new Date(ctx.clock.now()).toISOString() };
    this.#running = claim;
    let handedOver = false;
    try {
      const minute = Math.floor(ctx.clock.now() / 60_000);
      const key = KEYS.orchestratorLease(minute);
      // Replicas on one SQLite file contend here at the same second: `database is locked` is retried.
      const lease = await retryKv(
        "orchestrator lease",
        () =>
          ctx.kv.atomic().check({ key, versionstamp: null })
            .set(key, { holder, at: new Date(ctx.clock.now()).toISOString() }, {
              expireIn: 10 * 60_000,
            })
            .commit(),
        undefined,
        this.#leaseSleep,
      );
      if (!lease.ok) return { ran: false, reason: "not_leader" };
      handedOver = true; // #guarded releases the claim when the pass ends
      return {
        ran: true,
        report: await this.#guarded("orchestrator", () => runPass(ctx, "orchestrator"), claim),
      };
    } finally {
      if (!handedOver && this.#running === claim) this.#running = undefined;
    }
  }
}

/**
 * Runs one pass: every open day up to the horizon, the steps it needs, in order.
 * @param by `orchestrator` for scheduled passes, else the caller's name
 */
async function runPass(ctx: StepServices, by: string): Promise<PassReport> {
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
