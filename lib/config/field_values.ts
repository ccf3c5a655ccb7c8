/**
 * The value shapes the runtime-configurable fields share (`lib/config/fields.ts`): an EIC (with
 * its ENTSO-E check character), a host name, a local time `HH:MM` (Europe/Berlin), and the parsers
 * of an environment value into a list or a number.
 * @module
 */
import { z } from "zod";
import { eicProblem } from "../domain/eic.ts";

/** An ENTSO-E EIC: 16 characters with a valid check character; the problem in words. */
export const eic = z.string().superRefine((v, ctx) => {
  const problem = eicProblem(v);
  if (problem) {
    ctx.addIssue({
      code: "custom",
      message: `not a valid EIC: ${problem}`,
      params: {
        type: "value_error.eic",
        ctx: { pattern: "16 characters, ENTSO-E check character" },
      },
    });
  }
});

/**
 * An `EIC=EIC` entry (e.g. `control-area EIC=TSO EIC`); `expected` words the shape in the
 * refusal, and each EIC's problem is named with the EIC.
 */
export const eicPair = (expected: string) =>
  z.string().regex(/^[^=]+=[^=]+$/, `expected ${expected}`).superRefine((v, ctx) => {
    for (const part of v.split("=")) {
      const problem = eicProblem(part);
      if (problem) {
        ctx.addIssue({
          code: "custom",
          message: `not a valid EIC ${part}: ${problem}`,
          params: { type: "value_error.eic" },
        });
      }
    }
  });

/**
 * A check for a list of `key=…` entries: each key (the part before `=`) listed once; `what` names
 * it in the refusal ("balancing area", "metering point").
 */
export const keysListedOnce = (what: string) => (list: string[], ctx: z.RefinementCtx) => {
  const seen = new Set<string>();
  for (const e of list) {
    const key = e.split("=")[0];
    if (seen.has(key)) {
      ctx.addIssue({
        code: "custom",
        message: `${what} ${key} is listed twice`,
        params: { type: "value_error.duplicate" },
      });
    }
    seen.add(key);
  }
};

/** A host name or an IP address (IPv6 in brackets). */
export const hostname = z.string().min(1).max(253).regex(
  /^[A-Za-z0-9.-]+$|^\[[0-9a-fA-F:]+\]$/,
  "expected a host name or IP address",
);

/** A local time `HH:MM` (00:00–23:59). */
export const hhmm = z.string().regex(
  /^([01]\d|2[0-3]):[0-5]\d$/,
  "expected local time HH:MM (00:00–23:59)",
);

/** `a, b,c` → `["a", "b", "c"]` (empty parts dropped). */
export const list = (raw: string) => raw.split(",").map((s) => s.trim()).filter(Boolean);
/** Digits → a number; anything else stays text for the schema to refuse in words. */
export const num = (raw: string) => (/^\d+$/.test(raw.trim()) ? Number(raw.trim()) : raw);
/** A decimal → a number; anything else stays text for the schema to refuse in words. */
export const decimal = (
  raw: string,
) => (/^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw.trim()) : raw);
