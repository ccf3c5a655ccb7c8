/**
 * zod issues in the shape of an {@link InputIssue} (the 422 item of docs/architecture.md
 * "Errors"): for the domain's own validation and the HTTP edge's parameter checks alike.
 * @module
 */
import type { z } from "zod";
import type { InputIssue, IssueInput } from "./errors.ts";

const TYPE_OF: Record<string, string> = {
  invalid_type: "type_error",
  too_small: "value_error.too_small",
  too_big: "value_error.too_big",
  invalid_format: "value_error.format",
  invalid_value: "value_error.enum",
  unrecognized_keys: "extra_forbidden",
  custom: "value_error",
};

/** Converts zod issues to {@link InputIssue}s; `where` is `"body"`, `"query"`, `"path"` or `"header"`. */
export function zodIssuesToItems(
  where: string,
  issues: z.core.$ZodIssue[],
  input: unknown,
  secretFields: ReadonlySet<string> = new Set(),
): InputIssue[] {
  const items: InputIssue[] = [];
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        items.push({
          loc: [where, ...issue.path.map(String), key],
          msg: `unknown field "${key}"`,
          type: "extra_forbidden",
          // Named, never quoted: it may be a secret under a misspelt name.
          input: null,
          ctx: {},
        });
      }
      continue;
    }
    const path = issue.path.map((p) => (typeof p === "number" ? p : String(p)));
    const field = String(path[path.length - 1] ?? "");
    const params = (issue as { params?: { type?: string; ctx?: Record<string, unknown> } })
      .params;
    const ctx: Record<string, unknown> = { ...(params?.ctx ?? {}) };
    if ("expected" in issue && issue.expected !== undefined) ctx.expected = issue.expected;
    if ("minimum" in issue) ctx.minimum = Number(issue.minimum);
    if ("maximum" in issue) ctx.maximum = Number(issue.maximum);
    if ("values" in issue) ctx.values = issue.values;
    if (issue.code === "invalid_format") {
      ctx.format = issue.format;
      if ("pattern" in issue && issue.pattern !== undefined) ctx.pattern = String(issue.pattern);
    }
    const raw = valueAt(input, issue.path);
    items.push({
      loc: [where, ...path],
      msg: issue.message,
      type: params?.type ?? TYPE_OF[issue.code] ?? issue.code,
      // A secret field's value is never quoted, whatever the error.
      input: secretFields.has(field) ? null : clipInput(raw),
      ctx,
    });
  }
  return items;
}

/** Longest JSON text of an `input` echoed in a 422 item; longer ones are cut. */
const MAX_ECHO = 1000;

/**
 * The offending value for a 422 item: as sent when small, else the start of its JSON text with
 * `…` (a 422 never echoes a whole large body back); `null` when there was none (`undefined`: a
 * missing body or field), so the item's `input` is always present in JSON.
 */
export function clipInput(value: unknown): IssueInput {
  if (value === undefined) return null;
  if (value === null || typeof value !== "object") {
    return typeof value === "string" && value.length > MAX_ECHO
      ? value.slice(0, MAX_ECHO) + "…"
      : value;
  }
  const text = JSON.stringify(value);
  return text.length > MAX_ECHO ? text.slice(0, MAX_ECHO) + "…" : value as object;
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let cur: unknown = input;
  for (const p of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[p];
  }
  return cur;
}
