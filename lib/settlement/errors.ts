/**
 * The refusal of settlement inputs (docs/settlement.md, "Refusals"): actuals (MSCONS, CSV, JSON),
 * balancing-group sums and reBAP prices that break a rule. Every problem is one {@link InputIssue}
 * whose sentence names the message (or file row), the segment and the location; the HTTP edge
 * answers 422 with them (it is an {@link InvalidInput}, `lib/http/problem_map.ts`) and nothing is
 * stored.
 * @module
 */
import { type InputIssue, InvalidInput } from "../domain/errors.ts";
import { clipInput } from "../domain/issues.ts";

/** Stable `type` of each kind of refusal (the `type` of the 422 items). */
export type RefusalType =
  | "value_error.edifact"
  | "value_error.mscons"
  | "value_error.unknown_location"
  | "value_error.quarter_hour"
  | "value_error.gap"
  | "value_error.unit"
  | "value_error.decimal_mark"
  | "value_error.csv"
  | "value_error.rebap";

/** Settlement input refused: nothing of it was stored. `issues` lists every problem found. */
export class SettlementInputRefused extends InvalidInput {
  constructor(issues: InputIssue[]) {
    super(issues, "ERR_INPUT_INVALID");
    this.name = "SettlementInputRefused";
  }
}

/** At most this many problems are listed (a broken file of 10,000 locations would list all). */
export const MAX_ISSUES = 20;

/** Collects issues, at most {@link MAX_ISSUES}, and throws them together. */
export class IssueList {
  readonly issues: InputIssue[] = [];
  #dropped = 0;

  /** Adds one problem. `loc` is where (e.g. `["body", "UNH 1", "segment 12"]`). */
  add(loc: (string | number)[], msg: string, type: RefusalType, input: unknown = null): void {
    if (this.issues.length >= MAX_ISSUES) {
      this.#dropped++;
      return;
    }
    this.issues.push({ loc, msg, type, input: clipInput(input), ctx: {} });
  }

  /** True when a problem was found. */
  get any(): boolean {
    return this.issues.length > 0;
  }

  /** @throws {SettlementInputRefused} when a problem was found */
  throwIfAny(): void {
    if (!this.any) return;
    const issues = [...this.issues];
    if (this.#dropped) {
      issues.push({
        loc: ["body"],
        msg: `and ${this.#dropped} more problem${this.#dropped === 1 ? "" : "s"} not listed`,
        type: "value_error.more",
        input: null,
        ctx: { not_listed: this.#dropped },
      });
    }
    throw new SettlementInputRefused(issues);
  }
}
