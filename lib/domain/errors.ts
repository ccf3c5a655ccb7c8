/**
 * Named domain errors with a stable `code`, in the style of jose's errors: the pipeline, the
 * configuration and the orchestrator throw these and know nothing of HTTP; the HTTP edge maps
 * each code to a status and a body in one table (`lib/http/problem_map.ts`,
 * docs/architecture.md "Errors").
 *
 * Every error says whether the service *refused* (a rule forbids the step now: gate closure,
 * nothing to publish, not configured, already in flight), *failed* (a foreign system did not do
 * its part) or the input was *invalid* (with one {@link InputIssue} per problem). Event levels
 * follow from that: a refusal is a warning, a failure an error.
 * @module
 */

/** The offending value of an {@link InputIssue}: any value but `undefined`. */
export type IssueInput = NonNullable<unknown> | null;

/** One problem with an input: where, what, a stable type, the offending value, extra facts. */
export interface InputIssue {
  /** Where: e.g. `["body", "sftp_host"]`, `["body", "forecasts", 3, "values"]`, `["query", "limit"]`. */
  loc: (string | number)[];
  /** A sentence for a person. */
  msg: string;
  /** Stable machine code, e.g. `value_error.eic`, `extra_forbidden`, `int_parsing`. */
  type: string;
  /**
   * The offending value, always present: `null` when there was none (a missing body or field),
   * for a secret field, an unknown field and a body that did not parse (never quoted there;
   * docs/access-control.md "Secrets"). Never `undefined`, which JSON would drop.
   */
  input: IssueInput;
  /** Extra facts, e.g. `{expected: "…"}`; `{}` when none. */
  ctx: Record<string, unknown>;
}

/** Every code a domain error can carry. */
export type ErrorCode =
  | "ERR_GATE_CLOSED"
  | "ERR_NOT_AGGREGATED"
  | "ERR_PLATFORM_NOT_CONFIGURED"
  | "ERR_SCHEDULE_PARTIES_MISSING"
  | "ERR_SCHEDULE_INVALID"
  | "ERR_SCHEMA_INVALID"
  | "ERR_STATUS_REQUEST_REFUSED"
  | "ERR_CORRECTION_REFUSED"
  | "ERR_SUBMISSION_IN_FLIGHT"
  | "ERR_PASS_RUNNING"
  | "ERR_FORECAST_COVERAGE"
  | "ERR_PUBLISH_FAILED"
  | "ERR_SUBMIT_FAILED"
  | "ERR_FORECAST_INVALID"
  | "ERR_CONFIG_INVALID"
  | "ERR_INPUT_INVALID"
  | "ERR_KV_CONTENTION";

/** What kind of "no" an error is. */
export type ErrorOutcome = "refused" | "failed" | "invalid";

/** Base of every domain error; `message` is one sentence for the operator. */
export class DomainError extends Error {
  /** Stable code; never changes meaning. */
  readonly code: ErrorCode;
  readonly outcome: ErrorOutcome;
  /** @param options.cause the underlying error, when there is one */
  constructor(code: ErrorCode, outcome: ErrorOutcome, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "DomainError";
    this.code = code;
    this.outcome = outcome;
  }
}

/** Gate closure of the delivery day has passed: nothing was submitted or written. */
export class GateClosed extends DomainError {
  constructor(message: string) {
    super("ERR_GATE_CLOSED", "refused", message);
    this.name = "GateClosed";
  }
}

/** The day has no aggregate yet: there is nothing to publish or submit. */
export class NotAggregated extends DomainError {
  constructor(day: string, what: "publish" | "submit") {
    super(
      "ERR_NOT_AGGREGATED",
      "refused",
      `Delivery day ${day} has not been aggregated yet; nothing to ${what}.`,
    );
    this.name = "NotAggregated";
  }
}

/** A step needs configuration that is missing (the platform, the schedule's parties). */
export class NotConfigured extends DomainError {
  constructor(
    code: "ERR_PLATFORM_NOT_CONFIGURED" | "ERR_SCHEDULE_PARTIES_MISSING",
    message: string,
  ) {
    super(code, "refused", message);
    this.name = "NotConfigured";
  }
}

/**
 * A schedule document (Fahrplan, `lib/fahrplan/`) broke a rule of docs/pipeline.md "Schedules to
 * the TSO": it may not leave. `problems` lists every broken rule as a sentence.
 */
export class ScheduleInvalid extends DomainError {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(
      "ERR_SCHEDULE_INVALID",
      "refused",
      `The schedule may not be sent: ${problems.join("; ")}.`,
    );
    this.name = "ScheduleInvalid";
    this.problems = problems;
  }
}

/**
 * A document this service wrote fails ENTSO-E's schema of its namespace (or, with `ESS_DTD_DIR`,
 * the TSOs' ESS DTD; docs/fahrplan.md "Schema validation"): it is never sent. `message` names the
 * document, the element and the validator's finding in words.
 */
export class DocumentSchemaInvalid extends DomainError {
  /** The validator's findings, e.g. `line 30: element measure_Unit.name: This element is not expected. …`. */
  readonly findings: string;
  /** @param document names the document, e.g. `20270328_TPS_…_002.xml` */
  constructor(document: string, findings: string) {
    super(
      "ERR_SCHEMA_INVALID",
      "failed",
      `${document} was not sent: it does not validate ${findings}.`,
    );
    this.name = "DocumentSchemaInvalid";
    this.findings = findings;
  }
}

/** Another caller is submitting the same aggregate version right now: not sent twice. */
export class SubmissionInFlight extends DomainError {
  constructor(message: string) {
    super("ERR_SUBMISSION_IN_FLIGHT", "refused", message);
    this.name = "SubmissionInFlight";
  }
}

/** Too few market locations of the day have a forecast (`min_forecast_coverage`): not submitted. */
export class CoverageTooLow extends DomainError {
  constructor(message: string) {
    super("ERR_FORECAST_COVERAGE", "refused", message);
    this.name = "CoverageTooLow";
  }
}

/** An orchestrator pass is under way in this app: a second one is not started beside it. */
export class PassRunning extends DomainError {
  constructor(message: string) {
    super("ERR_PASS_RUNNING", "refused", message);
    this.name = "PassRunning";
  }
}

/** The sFTP server or the outbox did not take the file; nothing was recorded. */
export class PublishFailed extends DomainError {
  constructor(message: string, options?: ErrorOptions) {
    super("ERR_PUBLISH_FAILED", "failed", message, options);
    this.name = "PublishFailed";
  }
}

/** An input broke one or more rules; `issues` lists every one found. */
export class InvalidInput extends DomainError {
  readonly issues: InputIssue[];
  constructor(
    issues: InputIssue[],
    code: "ERR_FORECAST_INVALID" | "ERR_CONFIG_INVALID" | "ERR_INPUT_INVALID" = "ERR_INPUT_INVALID",
  ) {
    super(code, "invalid", issues.map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; "));
    this.name = "InvalidInput";
    this.issues = issues;
  }
}

/**
 * A write kept conflicting with concurrent writes to the same store (another replica on the same
 * KV file, docs/architecture.md "Writes and concurrency") through its whole retry budget: the
 * operation was not done, and the caller may send it again after `retryAfterSeconds`.
 */
export class StoreContended extends DomainError {
  /** Seconds after which a retry is worth it (the `Retry-After` of an HTTP answer). */
  readonly retryAfterSeconds: number;
  /**
   * @param what names the operation, e.g. `put market location 51238696788`
   * @param attempts how many rounds were tried
   */
  constructor(what: string, attempts: number, retryAfterSeconds = 1) {
    super(
      "ERR_KV_CONTENTION",
      "failed",
      `${what}: still conflicting after ${attempts} attempts, so it was not done; ` +
        `the store is busy with concurrent writes (e.g. another replica), ` +
        `try again in ${retryAfterSeconds} s.`,
    );
    this.name = "StoreContended";
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
