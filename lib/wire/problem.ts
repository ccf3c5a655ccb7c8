/**
 * Wire shapes of every refusal and error (docs/api.md, "Errors"): `{detail: "<sentence>"}` for
 * every status but 422, and the 422 body `{detail: [{loc, msg, type, input, ctx}]}`. The OpenAPI
 * document names them `Problem`, `ValidationProblem` and `ValidationItem`.
 * @module
 */
import { z } from "zod";
import type { InputIssue } from "../domain/errors.ts";

/** A refusal or error in words (401, 403, 404, 405, 409, 413, 415, 429, 500, 502, 503). */
export const ProblemSchema = z.object({
  /** One or more sentences: what was refused or failed, and why. Never a secret. */
  detail: z.string().meta({ description: "what was refused or failed, and why, in words" }),
}).meta({ id: "Problem", description: "A refusal or an error, in words." });
/** The `{detail}` body. */
export type Problem = z.infer<typeof ProblemSchema>;

/** One problem with the request (docs/api.md, "Errors"). */
export const ValidationItemSchema = z.object({
  /** Where: `["body", "forecasts", 3, "values"]`, `["query", "limit"]`, `["path", "day"]`. */
  loc: z.array(z.union([z.string(), z.number()])).meta({
    description: "where: body, query, path or header, then the field names and indexes",
  }),
  msg: z.string().meta({ description: "the problem, in words" }),
  /** Stable code, e.g. `value_error.eic`, `extra_forbidden`, `json_invalid`. */
  type: z.string().meta({ description: "stable code, e.g. value_error.eic, extra_forbidden" }),
  /** The offending value, cut to 1,000 characters; `null` when there was none or it is withheld. */
  input: z.unknown().meta({
    description:
      "the offending value (cut to 1,000 characters); null when there was none (a missing body or field), for a secret field, an unknown field and a body that is not JSON",
  }),
  ctx: z.record(z.string(), z.unknown()).meta({ description: "extra facts; {} when none" }),
}).meta({ id: "ValidationItem", description: "One problem with the request." });

/** The 422 body. */
export const ValidationProblemSchema = z.object({
  detail: z.array(ValidationItemSchema),
}).meta({ id: "ValidationProblem", description: "The request was refused: every problem found." });

/** The domain's issue is exactly one wire item (checked by the compiler). */
export type ValidationItem = z.infer<typeof ValidationItemSchema>;
const _sameShape: (i: InputIssue) => ValidationItem = (i) => i;
