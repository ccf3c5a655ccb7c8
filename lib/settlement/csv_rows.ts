/**
 * The rows of a settlement CSV input after its header (read with csv-parse; docs/settlement.md):
 * actuals (`market_location_id,start,kwh`) and the BRP's intraday trades
 * (`control_area,start,mwh,eur_mwh`). Pure.
 * @module
 */
import { parse } from "csv-parse/sync";
import { IssueList } from "./errors.ts";

/**
 * The data rows of `text` whose first line must be `header` (comma-separated names).
 * @param noun what a row is, for the refusal of a file with none ("data rows", "trades")
 * @throws {import("./errors.ts").SettlementInputRefused} not CSV, another header, or no rows
 */
export function csvRows(text: string, header: string, noun: string): string[][] {
  const issues = new IssueList();
  let table: string[][] = [];
  try {
    table = parse(text, { skip_empty_lines: true, trim: true, bom: true });
  } catch (err) {
    issues.add(["body"], `not valid CSV: ${(err as Error).message}`, "value_error.csv");
    issues.throwIfAny();
  }
  const [first = [], ...data] = table;
  if (first.join(",") !== header || data.length === 0) {
    issues.add(
      ["body", "line 1"],
      first.join(",") === header
        ? `line 1: no ${noun} after the header`
        : `line 1: expected the header ${header}, got ${first.join(",").slice(0, 100)}`,
      "value_error.csv",
    );
    issues.throwIfAny();
  }
  return data;
}
