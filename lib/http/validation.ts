/**
 * Request validation with zod, mapped onto the 422 body (docs/architecture.md, "Errors").
 * @module
 */
import { parse as parseJsonc, type ParseError, printParseErrorCode } from "jsonc-parser";
import type { z } from "zod";
import { ValidationFailed, type ValidationItem } from "./errors.ts";

const TYPE_OF: Record<string, string> = {
  invalid_type: "type_error",
  too_small: "value_error.too_small",
  too_big: "value_error.too_big",
  invalid_format: "value_error.format",
  invalid_value: "value_error.enum",
  unrecognized_keys: "extra_forbidden",
  custom: "value_error",
};

/** Converts zod issues to 422 items (docs/architecture.md, "Errors"); `where` is `"body"`, `"query"` or `"path"`. */
export function zodIssuesToItems(
  where: string,
  issues: z.core.$ZodIssue[],
  input: unknown,
  secretFields: ReadonlySet<string> = new Set(),
): ValidationItem[] {
  const items: ValidationItem[] = [];
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
 * `…` (a 422 never echoes a whole large body back).
 */
export function clipInput(value: unknown): unknown {
  if (value === null || typeof value !== "object") {
    return typeof value === "string" && value.length > MAX_ECHO
      ? value.slice(0, MAX_ECHO) + "…"
      : value;
  }
  const text = JSON.stringify(value);
  return text.length > MAX_ECHO ? text.slice(0, MAX_ECHO) + "…" : value;
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let cur: unknown = input;
  for (const p of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[p];
  }
  return cur;
}

/**
 * Parses `input` with `schema` or throws {@link ValidationFailed}.
 * @throws {ValidationFailed} with one item per zod issue
 */
export function parseOr422<S extends z.ZodType>(
  schema: S,
  input: unknown,
  where: string,
  secretFields?: ReadonlySet<string>,
): z.output<S> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  throw new ValidationFailed(zodIssuesToItems(where, r.error.issues, input, secretFields));
}

/**
 * Reads the body as JSON.
 * @throws {ValidationFailed} a 422 `json_invalid` that says where the body broke (position in
 *   characters from 0; line and column from 1) without quoting any of it: a body that does not
 *   parse may be a secret pasted into the wrong place (docs/access-control.md, "Secrets")
 */
export async function readJson(req: Request): Promise<unknown> {
  const text = await req.text();
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    const { reason, position } = whereJsonBreaks(text, (err as Error).message);
    const before = text.slice(0, position).split("\n");
    const line = before.length;
    const column = before[before.length - 1].length + 1;
    throw new ValidationFailed([{
      loc: ["body"],
      msg:
        `body is not valid JSON: ${reason} at position ${position} (line ${line}, column ${column})`,
      type: "json_invalid",
      input: null,
      ctx: { position, line, column },
    }]);
  }
}

/**
 * Why and where a text that `JSON.parse` refused breaks: V8's own position when its message
 * names one (its wording does not quote the text then), else the first error jsonc-parser finds.
 */
function whereJsonBreaks(text: string, v8Message: string): { reason: string; position: number } {
  const m = /^(.*?) in JSON at position (\d+)/.exec(v8Message);
  if (m) return { reason: m[1].toLowerCase(), position: Number(m[2]) };
  if (v8Message.startsWith("Unexpected end of JSON input")) {
    return { reason: "unexpected end of input", position: text.length };
  }
  const errors: ParseError[] = [];
  parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false });
  const first = errors[0];
  if (!first) return { reason: "not parseable", position: 0 };
  const words = printParseErrorCode(first.error).replace(/([a-z])([A-Z])/g, "$1 $2");
  return { reason: words.toLowerCase(), position: first.offset };
}
