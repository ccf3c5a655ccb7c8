/**
 * The pruner (docs/retention.md): run from every orchestrator tick, it takes the retention lease
 * (one replica at a time), then works in bounded steps until its time budget is spent — one
 * archiving step of the oldest expired delivery day, one batch of deletions, or one month's batch
 * of old events — and refreshes the store's size facts.
 *
 * A day goes `archiving` → `pruning` → gone, its state in `KEYS.retentionDay`: every file is
 * written and read back and `manifest.json` written before the phase becomes `pruning`; deletion
 * runs in atomic batches, the day state (`["days", day]`) and the pruning state go last, in one
 * atomic. A crash at any point leaves the day whole (archiving), or archived and still listed as
 * `pruning`, which the next run finishes — never half a day without its archive. Every write checks
 * the lease's versionstamp, so a replica that lost the lease stops at its next write.
 * @module
 */
import type { ServiceContext } from "../context.ts";
import type { Settings } from "../settings.ts";
import { DAY_SCOPED_PREFIXES, dayScopedRange, KEYS } from "../store/keys.ts";
import { archiveStep, type DayPruning, startPruning } from "./day_archive.ts";
import { archiveEventStep } from "./event_archive.ts";
import { readFacts, type RetentionFacts, setFacts } from "./facts.ts";
import { dayExpired, eventCutoffMs, nextExpiredDay } from "./plan.ts";
import { addDays } from "../domain/delivery_day.ts";
import { archiveTargetOf } from "./target_of.ts";
import type { ArchiveTarget } from "./target.ts";

/** Time one run may spend working, in ms of real time (checked between steps). */
export const DEFAULT_BUDGET_MS = 250;
/** Keys deleted per atomic. */
const DELETES_PER_ATOMIC = 500;
/** How far past expiry the oldest event must be before a run archives events, ms. */
const EVENT_SLACK_MS = 86_400_000;
/** How long a lease holds without being renewed, ms of the service clock. */
const LEASE_MS = 5 * 60_000;

/** What the pruner uses of the app's services. */
export interface PrunerServices
  extends Pick<ServiceContext, "kv" | "clock" | "config" | "events" | "redactor"> {
  settings: Pick<Settings, "retentionDays" | "archiveDir">;
}

/** What one run did. */
export interface PruneReport {
  ran: boolean;
  /** Days whose last key left the store in this run. */
  days_pruned: string[];
  events_archived: number;
  steps: number;
  /** Real time the run's steps took, ms (the lease and the facts not counted). */
  work_ms?: number;
  error?: string;
}

/** Options of a {@link Pruner}; the hooks are for tests. */
export interface PrunerOptions {
  budgetMs?: number;
  /** Called before each deletion batch of a day (a test throws here to simulate a crash). */
  beforeDelete?: (day: string) => void;
  /** The target to use instead of the configured one. */
  target?: ArchiveTarget;
}

interface Lease {
  holder: string;
  until: number;
}

/** The pruner of one app. */
export class Pruner {
  #svc: PrunerServices;
  #opts: PrunerOptions;

  constructor(svc: PrunerServices, opts: PrunerOptions = {}) {
    this.#svc = svc;
    this.#opts = opts;
  }

  /**
   * One run: lease, bounded steps, facts. Never throws: a failure ends the run and is reported
   * (the orchestrator turns it into an event); the next run goes on from the stored state.
   * @param holder this replica's name
   */
  async run(holder: string): Promise<PruneReport> {
    const { kv } = this.#svc;
    const report: PruneReport = { ran: false, days_pruned: [], events_archived: 0, steps: 0 };
    const lease = await this.#acquire(holder);
    if (!lease) return report;
    report.ran = true;
    let target: ArchiveTarget | undefined;
    let facts: RetentionFacts | null = null;
    try {
      if (this.#svc.settings.retentionDays > 0) {
        target = this.#opts.target ?? archiveTargetOf(
          await this.#svc.config.effective(),
          this.#svc.settings.archiveDir,
          this.#svc.redactor,
        );
        const t0 = performance.now();
        try {
          await this.#work(lease, target, report);
        } finally {
          report.work_ms = Math.round(performance.now() - t0);
        }
      }
      facts = await this.#refreshFacts(report);
    } catch (err) {
      report.error = (err as Error).message;
    } finally {
      if (!this.#opts.target) await target?.close();
      // The facts are stored with the lease's release, in one atomic that checks the lease.
      const release = kv.atomic().check(lease).delete(KEYS.retentionLease);
      if (facts) setFacts(release, facts);
      await release.commit().catch(() => {});
    }
    return report;
  }

  async #acquire(holder: string): Promise<Deno.KvEntry<Lease> | null> {
    const { kv, clock } = this.#svc;
    const cur = await kv.get<Lease>(KEYS.retentionLease);
    const now = clock.now();
    if (cur.value && cur.value.until > now && cur.value.holder !== holder) return null;
    const value = { holder, until: now + LEASE_MS };
    const r = await kv.atomic().check(cur).set(KEYS.retentionLease, value).commit();
    return r.ok ? { key: KEYS.retentionLease, value, versionstamp: r.versionstamp } : null;
  }

  async #work(
    lease: Deno.KvEntry<Lease>,
    target: ArchiveTarget,
    report: PruneReport,
  ): Promise<void> {
    const { kv, clock } = this.#svc;
    const days = this.#svc.settings.retentionDays;
    const t0 = performance.now();
    const budget = this.#opts.budgetMs ?? DEFAULT_BUDGET_MS;
    const cfg = await this.#svc.config.effective();
    const more = () => performance.now() - t0 < budget;
    let eventsDone = false;
    let eventSteps = 0;
    let day: string | null = null;
    let daysDone = false;
    // At least one step per run, then more while the budget lasts.
    for (let first = true; first || more(); first = false) {
      // The same day until it is gone, then the next one planned.
      if (!daysDone) day ??= await nextExpiredDay(kv, clock.now(), days);
      if (day) {
        const step = await this.#dayStep(lease, target, day, cfg, more);
        report.steps += step.steps;
        if (step.gone) {
          report.days_pruned.push(day);
          await this.#svc.events.append({
            kind: "day_archived",
            message:
              `Delivery day ${day} is archived to ${target.name} and has left the store (older than RETENTION_DAYS=${days}).`,
            delivery_day: day,
            caller: "orchestrator",
            data: { archive: target.name, folder: day.replaceAll("-", "/") },
          });
          // The planned day was the oldest: when the next one has not expired, none has (a
          // record written meanwhile for an older day waits for the next run's planning).
          daysDone = !dayExpired(addDays(day, 1), clock.now(), days);
          day = null;
        }
        continue;
      }
      if (eventsDone) break;
      report.steps++;
      // A run's first batch only when the oldest event is a day past expiry (docs/retention.md,
      // "Events"): a month file is then written about once a day, not on every tick.
      const cutoff = eventCutoffMs(clock.now(), days);
      const startBefore = eventSteps++ === 0 ? cutoff - EVENT_SLACK_MS : cutoff;
      const step = await archiveEventStep(kv, target, cutoff, startBefore);
      report.events_archived += step.archived;
      if (step.archived === 0) eventsDone = true;
    }
  }

  /**
   * One step of `day`: its archiving stages while `more()` (at least one; the state is stored
   * once, after the last), or one batch of deletions.
   * @returns `gone` when the day's last key left the store in this step; `steps` taken
   * @throws {Error} "retention lease lost" when another replica took over
   */
  async #dayStep(
    lease: Deno.KvEntry<Lease>,
    target: ArchiveTarget,
    day: string,
    cfg: Awaited<ReturnType<PrunerServices["config"]["effective"]>>,
    more: () => boolean,
  ): Promise<{ gone: boolean; steps: number }> {
    const { kv, clock } = this.#svc;
    const cur = await kv.get<DayPruning>(KEYS.retentionDay(day));
    const save = async (next: DayPruning) => {
      const r = await kv.atomic().check(lease).check(cur).set(KEYS.retentionDay(day), next)
        .commit();
      if (!r.ok) throw new Error("retention lease lost; another replica goes on");
    };
    let s = cur.value ?? startPruning(day, clock.now());
    if (s.phase === "archiving") {
      // A crash between stages loses only unsaved stages: they run again and write the same
      // files; nothing is deleted before the stored phase is `pruning`.
      let steps = 0;
      do {
        s = await archiveStep(kv, target, s, cfg, clock.now());
        steps++;
      } while (s.phase === "archiving" && more());
      await save(s);
      return { gone: false, steps };
    }
    // Pruning: the day's keys in atomic batches; the day state and the pruning state go in the
    // last one, so the day is listed until its last record is gone.
    this.#opts.beforeDelete?.(day);
    // Up to a batch from each prefix at once, then the first batch of them in prefix order.
    const lists = await Promise.all(
      DAY_SCOPED_PREFIXES.filter((p) => p !== "days").map(async (prefix) => {
        const keys: Deno.KvKey[] = [];
        const range = dayScopedRange(prefix, day);
        for await (const e of kv.list(range, { limit: DELETES_PER_ATOMIC })) keys.push(e.key);
        return keys;
      }),
    );
    const keys = lists.flat().slice(0, DELETES_PER_ATOMIC);
    const last = keys.length < DELETES_PER_ATOMIC;
    const op = kv.atomic().check(lease);
    for (const k of keys) op.delete(k);
    if (last) op.check(cur).delete(KEYS.day(day)).delete(KEYS.retentionDay(day));
    if (!(await op.commit()).ok) throw new Error("retention lease lost; another replica goes on");
    return { gone: last, steps: 1 };
  }

  /**
   * Recounts the store's size facts and records the run when it did something.
   * @returns the facts to store, `null` when the stored ones stay
   */
  async #refreshFacts(report: PruneReport): Promise<RetentionFacts | null> {
    const { kv, clock } = this.#svc;
    const old = await readFacts(kv);
    const did = report.days_pruned.length > 0 || report.events_archived > 0;
    // Recounted after work, and at most hourly otherwise (a count lists the day states).
    if (old && !did && clock.now() - Date.parse(old.counted_at) < 3_600_000) return null;
    return {
      ...await countStore(kv),
      counted_at: new Date(clock.now()).toISOString(),
      last_pruning: did
        ? {
          at: new Date(clock.now()).toISOString(),
          days_pruned: report.days_pruned.length,
          last_day: report.days_pruned.at(-1) ?? old?.last_pruning?.last_day ?? null,
          events_archived: report.events_archived,
        }
        : old?.last_pruning ?? null,
    };
  }
}

/** Days kept, oldest day, events kept (head − oldest id + 1) and the oldest event id. */
async function countStore(
  kv: Deno.Kv,
): Promise<Pick<RetentionFacts, "days_kept" | "oldest_day" | "events_kept" | "oldest_event_id">> {
  let days = 0;
  let oldest: string | null = null;
  let oldestId: number | null = null;
  // The three reads at once.
  const [, , headEntry] = await Promise.all([
    (async () => {
      for await (const e of kv.list({ prefix: KEYS.days }, { batchSize: 500 })) {
        oldest ??= e.key[1] as string;
        days++;
      }
    })(),
    (async () => {
      for await (const e of kv.list({ prefix: KEYS.events }, { limit: 1 })) {
        oldestId = e.key[1] as number;
      }
    })(),
    kv.get<number>(KEYS.eventsHead),
  ]);
  const head = headEntry.value ?? 0;
  return {
    days_kept: days,
    oldest_day: oldest,
    events_kept: oldestId === null ? 0 : head - oldestId + 1,
    oldest_event_id: oldestId,
  };
}
