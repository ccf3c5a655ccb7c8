/**
 * The `event_history` part (docs/benchmarks.md): `EventLog.list` pages of 100 out of
 * `BENCH_HISTORY_EVENTS` (1,000,000), `BENCH_SAMPLES` (2,000) times, against bare `kv.list`.
 * @module
 */
import { systemClock } from "../lib/clock.ts";
import { EventLog, type EventRecord } from "../lib/store/events.ts";
import { num, report, type Row, row, stats, tempDir } from "./common.ts";
import { event } from "./event_append.ts";

const PART = "3b event history";
const TARGET = num("BENCH_HISTORY_EVENTS", 1_000_000);
const SAMPLES = num("BENCH_SAMPLES", 2_000);
const FILL_LIMIT_MS = 120_000;
const PAGE = 100;

/** Fills `kv` with up to `TARGET` events directly. */
async function fill(kv: Deno.Kv): Promise<{ n: number; ms: number }> {
  const t0 = performance.now();
  const ts = new Date().toISOString();
  let n = 0;
  while (n < TARGET && performance.now() - t0 < FILL_LIMIT_MS) {
    const op = kv.atomic();
    const end = Math.min(TARGET, n + 999); // + the head: 1,000 mutations
    for (let id = n + 1; id <= end; id++) {
      op.set(["events", id], { ...event(id), level: "info", id, ts } satisfies EventRecord);
    }
    op.set(["events_head"], end);
    if (!(await op.commit()).ok) throw new Error("fill commit failed");
    n = end;
  }
  return { n, ms: performance.now() - t0 };
}

/** The bare page: newest `PAGE`, or `PAGE` after `afterId`. */
async function bareList(kv: Deno.Kv, afterId?: number): Promise<unknown[]> {
  const out: unknown[] = [];
  const iter = afterId === undefined
    ? kv.list({ prefix: ["events"] }, { limit: PAGE, reverse: true })
    : kv.list(
      { start: ["events", afterId + 1], end: ["events", Number.MAX_SAFE_INTEGER] },
      { limit: PAGE },
    );
  for await (const e of iter) out.push(e.value);
  return out;
}

/** Runs the part; its rows. */
export async function main(): Promise<Row[]> {
  const dir = await tempDir("bench-history-");
  const kv = await Deno.openKv(`${dir.path}/events.kv`);
  try {
    const filled = await fill(kv);
    console.log(`filled ${filled.n} events in ${(filled.ms / 1000).toFixed(1)} s`);
    const log = new EventLog(kv, systemClock);
    const logT: number[] = [], bareT: number[] = [], logNew: number[] = [], bareNew: number[] = [];
    const time = async (into: number[], fn: () => Promise<unknown[]>) => {
      const t = performance.now();
      const page = await fn();
      into.push(performance.now() - t);
      if (page.length !== PAGE) throw new Error(`page of ${page.length}`);
    };
    for (let i = 0; i < SAMPLES; i++) {
      const after = Math.floor(Math.random() * (filled.n - PAGE));
      const a = () => time(logT, () => log.list({ limit: PAGE, afterId: after }));
      const b = () => time(bareT, () => bareList(kv, after));
      if (i % 2) await a().then(b);
      else await b().then(a);
      if (i % 10 === 0) {
        await time(logNew, () => log.list({ limit: PAGE }));
        await time(bareNew, () => bareList(kv));
      }
    }
    const page = (metric: string, l: number[], b: number[]): Row => {
      const sl = stats(l), sb = stats(b);
      const name = `${metric}: p99 (p50 ${sl.p50.toFixed(2)} vs ${
        sb.p50.toFixed(2)
      } ms, n=${sl.n})`;
      const goal: [string, boolean] = ["p99 ≤ 2× bare", sl.p99 <= 2 * sb.p99];
      return row(PART, name, sl.p99, "ms", { base: ["bare kv.list", sb.p99], goal });
    };
    const complete = filled.n === TARGET;
    return [
      row(PART, `fill ${filled.n} events (999 per atomic)`, filled.ms / 1000, "s", {
        note: complete
          ? "complete"
          : `stopped at the ${FILL_LIMIT_MS / 1000} s bound: ${filled.n} of ${TARGET}`,
      }),
      page(`EventLog.list 100 after random id of ${filled.n}`, logT, bareT),
      page("EventLog.list newest 100", logNew, bareNew),
    ];
  } finally {
    kv.close();
    await dir.remove();
  }
}

if (import.meta.main) report(await main());
