/**
 * The process log: one JSON line per entry on stderr (warnings, errors) or stdout (info), for
 * container and Deno Deploy logs. Every line passes the redactor first, so no configured secret
 * reaches the log, whatever an exception message or a foreign system's answer quoted
 * (docs/access-control.md, "Secrets").
 *
 * @example
 * const log = new ProcessLog(redactor, clock);
 * log.error("request_failed", "request 1f… failed", err);
 * // stderr: {"ts":"2026-11-23T10:41:00.000Z","level":"error","kind":"request_failed",…}
 * @module
 */
import type { Clock } from "./clock.ts";
import type { TextRedactor } from "./store/redactor.ts";
import type { EventRecord } from "./wire/events.ts";

/** Severity of a log line. */
export type LogLevel = "info" | "warning" | "error";

/** Where lines go; the console by default, a collector in tests. */
export interface LogSink {
  /** Writes one finished line (no newline) at `level`. */
  write(level: LogLevel, line: string): void;
}

const consoleSink: LogSink = {
  write(level, line) {
    if (level === "info") console.log(line);
    else console.error(line);
  },
};

/** Longest log line in characters (after masking); the rest is cut with `…`. */
const MAX_LINE = 16_384;

/** Writes redacted JSON lines. */
export class ProcessLog {
  #redactor: TextRedactor;
  #clock: Clock;
  #sink: LogSink;
  #info: boolean;

  /**
   * @param redactor the app's redactor
   * @param clock time of each line (UTC)
   * @param opts.sink default: stdout for info, stderr for warnings and errors;
   *   `opts.level`: `warning` (default) leaves info lines out, `info` writes them too
   */
  constructor(
    redactor: TextRedactor,
    clock: Clock,
    opts: { sink?: LogSink; level?: "warning" | "info" } = {},
  ) {
    this.#redactor = redactor;
    this.#clock = clock;
    this.#sink = opts.sink ?? consoleSink;
    this.#info = opts.level === "info";
  }

  /**
   * Writes a stored event as one line `{ts, level, kind, message, delivery_day, caller, id}`:
   * warnings, errors and `orchestration_recovered` always, other info only with `LOG_LEVEL=info`, so container and Deno Deploy
   * logs show every failure without the console (docs/architecture.md, "Process log").
   */
  event(e: EventRecord): void {
    // A recovery closes an error line (lib/store/repeated_failures.ts): written at every level.
    if (e.level === "info" && !this.#info && e.kind !== "orchestration_recovered") return;
    const line = JSON.stringify({
      ts: e.ts,
      level: e.level,
      kind: e.kind,
      message: e.message,
      delivery_day: e.delivery_day ?? null,
      caller: e.caller ?? null,
      id: e.id,
    });
    this.#sink.write(e.level, this.#redactor.text(line, MAX_LINE));
  }

  /**
   * Writes one line `{ts, level, kind, message, error?, ...fields}`.
   * @param err an exception whose stack (or text) is added as `error`
   */
  write(
    level: LogLevel,
    kind: string,
    message: string,
    err?: unknown,
    fields: Record<string, unknown> = {},
  ): void {
    const entry: Record<string, unknown> = {
      ts: new Date(this.#clock.now()).toISOString(),
      level,
      kind,
      message,
      ...fields,
    };
    if (err !== undefined) entry.error = describe(err);
    if (level === "info" && !this.#info) return;
    this.#sink.write(level, this.#redactor.text(JSON.stringify(entry), MAX_LINE));
  }

  /** {@link ProcessLog.write} at `error`. */
  error(kind: string, message: string, err?: unknown, fields?: Record<string, unknown>): void {
    this.write("error", kind, message, err, fields);
  }

  /** {@link ProcessLog.write} at `info` (written only with `LOG_LEVEL=info`). */
  info(kind: string, message: string, fields?: Record<string, unknown>): void {
    this.write("info", kind, message, undefined, fields);
  }

  /** {@link ProcessLog.write} at `warning`. */
  warn(kind: string, message: string, err?: unknown, fields?: Record<string, unknown>): void {
    this.write("warning", kind, message, err, fields);
  }
}

/** An exception as text: its stack with the causes below it, or its string form. */
function describe(err: unknown): string {
  const parts: string[] = [];
  let cur: unknown = err;
  for (let depth = 0; cur !== undefined && depth < 5; depth++) {
    parts.push(cur instanceof Error ? (cur.stack ?? `${cur.name}: ${cur.message}`) : String(cur));
    cur = cur instanceof Error ? cur.cause : undefined;
  }
  return parts.join("\ncaused by: ");
}
