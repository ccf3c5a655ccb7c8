/**
 * The refusal of a weather delivery (docs/weather.md, "Refusals"): every problem found is one
 * {@link InputIssue} whose sentence names the line (CSV) or the array element (Open-Meteo JSON)
 * and the field; the HTTP edge answers 422 with them (an {@link InvalidInput}) and nothing of the
 * delivery is stored.
 * @module
 */
import { clipInput } from "../domain/issues.ts";
import { type InputIssue, InvalidInput } from "../domain/errors.ts";

/** Stable `type` of each kind of refusal (the `type` of the 422 items). */
export type WeatherRefusal =
  | "value_error.csv"
  | "value_error.json"
  | "value_error.weather_point"
  | "value_error.time"
  | "value_error.quarter_hour"
  | "value_error.duplicate"
  | "value_error.number"
  | "value_error.irradiance"
  | "value_error.range"
  | "value_error.unit"
  | "value_error.gap"
  | "value_error.missing";

/** A weather delivery refused: nothing of it was stored. `issues` lists the problems found. */
export class WeatherInputRefused extends InvalidInput {
  constructor(issues: InputIssue[]) {
    super(issues, "ERR_INPUT_INVALID");
    this.name = "WeatherInputRefused";
  }
}

/** At most this many problems are listed; one more item counts the rest. */
export const MAX_LISTED = 20;

/** Collects the problems of one delivery and throws them together. */
export class WeatherIssues {
  readonly #items: InputIssue[] = [];
  #more = 0;

  /**
   * Records a problem.
   * @param loc where, e.g. `["body", "line 4", "ghi_w_m2"]` or `["body", "hourly", "time", 7]`
   * @param msg the sentence, naming line (or element) and field
   * @param input the offending value (cut to 1,000 characters)
   */
  add(loc: (string | number)[], msg: string, type: WeatherRefusal, input: unknown): void {
    if (this.#items.length < MAX_LISTED) {
      this.#items.push({ loc, msg, type, input: clipInput(input ?? null), ctx: {} });
    } else this.#more++;
  }

  /** How many problems were found so far. */
  get count(): number {
    return this.#items.length + this.#more;
  }

  /** @throws {WeatherInputRefused} when any problem was recorded */
  throwIfAny(): void {
    if (this.count === 0) return;
    const items = this.#more
      ? [...this.#items, {
        loc: ["body"],
        msg: `and ${this.#more} more problem${this.#more === 1 ? "" : "s"} not listed`,
        type: "value_error.more",
        input: null,
        ctx: { not_listed: this.#more },
      }]
      : this.#items;
    throw new WeatherInputRefused(items);
  }
}
