/**
 * The orchestrator (docs/orchestrator.md). A tick (from `Deno.cron`, every minute) is a no-op
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
import { type PassReport, rejectedIn, runPass } from "./run_pass.ts";
import { PassRunning } from "../domain/errors.ts";
import { retryKv } from "../store/kv.ts";
import type { Sleep } from "../clock.ts";
import type { Settings } from "../settings.ts";
import { readOrchestratorState } from "./state.ts";
import { KEYS } from "../store/keys.ts";
import type { LastPass } from "../wire/orchestrator.ts";
import { type PassLog, passOutcome } from "./passes.ts";
import { importInbox, type ImportResult } from "../fahrplan/inbox.ts";
import { importActualsInbox } from "../settlement/inbox.ts";
import { importWeatherInbox } from "../weather/inbox.ts";
import { pollPlatform } from "../fahrplan/platform_poll.ts";
import { requestOverdueStatuses } from "../fahrplan/status_requests.ts";
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

export type { PassReport } from "./run_pass.ts";

/** Outcome of a tick. */
export type TickOutcome =
  | { ran: false; reason: "stopped" | "not_leader" | "busy" }
  | { ran: false; reason: "failed"; error: string }
  | { ran: true; report: PassReport };

/**
 * The orchestrator of one app: scheduled ticks and manual passes go through one guard, so a
 * process never runs two passes at once (and two apps in one process do not share it).
 */
export class Orchestrator {
  #ctx: OrchestratorServices;
  #passes: PassLog | undefined;
  /** The pass under way in this app, with who started it and when. */
  #running: { by: string; since: string } | undefined;
  /** Resolves when the pass under way ends (set with {@link #running}). */
  #ended: { promise: Promise<void>; resolve: () => void } | undefined;
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
    const imported = await this.#importAnswers();
    // One story for every replica: the same cause (KV down) fails them all alike.
    const source = "orchestrator_tick";
    try {
      const outcome = await this.#tickOnce(holder, imported);
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
    // A repeated retention failure is one story (docs/orchestrator.md, "Repeated failures").
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
   * Imports the TSO's answers waiting in the inbox, asks the market platform about the
   * documents it took whose state is not final, and sends a status request where a TSO's answer
   * is overdue, and imports the actuals and weather inboxes, whatever the orchestrator's state
   * (CNFs arrive also after gate closure). Never throws: a failure is an `orchestration_error`
   * event.
   * @returns what the inbox import did per file (none when it failed)
   */
  async #importAnswers(): Promise<ImportResult[]> {
    const ctx = this.#ctx;
    let inbox: ImportResult[] = [];
    // Read once for both; a failure to read it is each task's failure, told once per task.
    const cfg = ctx.config.effective();
    cfg.catch(() => {});
    const tasks = [
      [
        "answers_import",
        "Importing the TSO answers",
        async () => inbox = await importInbox(ctx, await cfg, "orchestrator"),
      ],
      [
        "answers_platform",
        "Asking the market platform for the TSO answers",
        async () => pollPlatform(ctx, await cfg, "orchestrator"),
      ],
      [
        "status_requests",
        "Asking the TSOs for overdue answers",
        async () => requestOverdueStatuses(ctx, await cfg, "orchestrator"),
      ],
      [
        "actuals_import",
        "Importing actuals and imbalance prices from the actuals inbox",
        async () => importActualsInbox(ctx, await cfg, "orchestrator"),
      ],
      [
        "weather_import",
        "Importing weather from the weather inbox",
        async () => importWeatherInbox(ctx, await cfg, "orchestrator"),
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
    return inbox;
  }

  /**
   * One pass now, also while stopped (the operator's override of `POST /v1/orchestrate`); like a
   * tick it first imports the TSO's answers (inbox, market platform).
   * @param by the caller's name
   * @param opts `wait`: while a pass (scheduled or manual) is under way, wait until it has ended
   *   and run this one after it, instead of refusing (scripts such as `deno task demo`, whose call
   *   may meet the cron's pass of the minute; docs/orchestrator.md)
   * @throws {PassRunning} while a pass is under way in this app and `wait` is not set
   */
  async runNow(by: string, opts: { wait?: boolean } = {}): Promise<PassReport> {
    while (this.#running) {
      if (!opts.wait) {
        throw new PassRunning(
          `An orchestrator pass started by ${this.#running.by} at ${this.#running.since} is still running; try again when it has finished, or ask with ?wait=true to run after it.`,
        );
      }
      await this.#ended?.promise;
    }
    return await this.#guarded(by, async () => {
      const rejected = rejectedIn(await this.#importAnswers());
      return { ...await runPass(this.#ctx, by), ...(rejected ? { rejected_files: rejected } : {}) };
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
    const claim = claimed ?? this.#claim({ by, since: startedAt });
    try {
      const report = await fn();
      await this.#record(by, startedAt, passOutcome(report), {
        days: report.days,
        rejected_files: report.rejected_files,
      });
      return report;
    } catch (err) {
      await this.#record(by, startedAt, { outcome: "failed", steps_run: 0, steps_failed: 0 }, {
        error: (err as Error).message,
      });
      throw err;
    } finally {
      this.#release(claim);
    }
  }

  /** Marks `claim` as the pass under way (synchronously: nothing can start in between). */
  #claim(claim: { by: string; since: string }): { by: string; since: string } {
    this.#running = claim;
    let resolve = () => {};
    const promise = new Promise<void>((r) => resolve = r);
    this.#ended = { promise, resolve };
    return claim;
  }

  /** Ends `claim` if it is still the pass under way, and wakes whoever waits for its end. */
  #release(claim: { by: string; since: string }): void {
    if (this.#running !== claim) return;
    this.#running = undefined;
    this.#ended?.resolve();
    this.#ended = undefined;
  }

  /** Records a finished pass; a failure to record is logged, never the pass's failure. */
  async #record(
    by: string,
    startedAt: string,
    result: Pick<LastPass, "outcome" | "steps_run" | "steps_failed">,
    detail: Pick<FinishedPass, "days" | "error" | "rejected_files"> = {},
  ): Promise<void> {
    const rejected = detail.rejected_files?.length ?? 0;
    const pass: LastPass = {
      started_at: startedAt,
      finished_at: new Date(this.#ctx.clock.now()).toISOString(),
      by,
      ...result,
      ...(rejected ? { files_rejected: rejected } : {}),
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

  async #tickOnce(holder: string, imported: ImportResult[]): Promise<TickOutcome> {
    const ctx = this.#ctx;
    const state = await readOrchestratorState(ctx.kv, ctx.settings.orchestratorAutostart);
    if (state.state !== "running") return { ran: false, reason: "stopped" };
    if (this.#running) return { ran: false, reason: "busy" };
    // Taken before the lease is awaited: a manual pass asked for meanwhile is refused, not run
    // beside this one.
    const claim = this.#claim({
      by: "orchestrator",
      since: new Date(ctx.clock.now()).toISOString(),
    });
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
        report: await this.#guarded("orchestrator", async () => {
          const rejected = rejectedIn(imported);
          const report = await runPass(ctx, "orchestrator");
          return rejected ? { ...report, rejected_files: rejected } : report;
        }, claim),
      };
    } finally {
      if (!handedOver) this.#release(claim);
    }
  }
}
