/**
 * Request validation with zod, mapped onto the 422 body (docs/architecture.md, "Errors").
 * @module
 */
import type { ParseError } from "jsonc-parser";
import type { z } from "zod";
import { zodIssuesToItems } from "../domain/issues.ts";
import { ValidationFailed } from "./errors.ts";

export { clipInput, zodIssuesToItems } from "../domain/issues.ts";

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
    const { reason, position } = await whereJsonBreaks(text, (err as Error).message);
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

let jsonc: Promise<typeof import("jsonc-parser")> | undefined;

/**
 * Why and where a text that `JSON.parse` refused breaks: V8's own position when its message
 * names one (its wording does not quote the text then), else the first error jsonc-parser finds
 * (imported at the first such body, not when the service starts).
 */
async function whereJsonBreaks(
  text: string,
  v8Message: string,
): Promise<{ reason: string; position: number }> {
  const m = /^(.*?) in JSON at position (\d+)/.exec(v8Message);
  if (m) return { reason: m[1].toLowerCase(), position: Number(m[2]) };
  if (v8Message.startsWith("Unexpected end of JSON input")) {
    return { reason: "unexpected end of input", position: text.length };
  }
  const { parse: parseJsonc, printParseErrorCode } = await (jsonc ??= import("jsonc-parser"));
  const errors: ParseError[] = [];
  parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false });
  const first = errors[0];
  if (!first) return { reason: "not parseable", position: 0 };
  const words = printParseErrorCode(first.error).replace(/([a-z])([A-Z])/g, "$1 $2");
  return { reason: words.toLowerCase(), position: first.offset };
}
