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

  /**
   * @param redactor the app's redactor
   * @param clock time of each line (UTC)
   * @param sink default: stdout for info, stderr for warnings and errors
   */
  constructor(redactor: TextRedactor, clock: Clock, sink: LogSink = consoleSink) {
    this.#redactor = redactor;
    this.#clock = clock;
    this.#sink = sink;
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
    this.#sink.write(level, this.#redactor.text(JSON.stringify(entry), MAX_LINE));
  }

  /** {@link ProcessLog.write} at `error`. */
  error(kind: string, message: string, err?: unknown, fields?: Record<string, unknown>): void {
    this.write("error", kind, message, err, fields);
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
