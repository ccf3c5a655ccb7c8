/**
 * The runtime field `tso_non_working_days` (docs/post-delivery.md, docs/configuration.md): extra
 * days on which a TSO takes no post-delivery corrections, beyond its calendar
 * (lib/domain/tso_calendars.ts) — a TSO's own days where the service holds only the statutory
 * rule (50Hertz, TransnetBW), or a day a TSO announces. Entries `TSO EIC=YYYY-MM-DD`, like
 * `tso_party_eics`. Validated (the EIC with its check character, a real calendar date, no entry
 * twice; the TSO one with a calendar or one configured in `tso_party_eics`:
 * {@link nonWorkingDaysProblems}) and audited like every field (`config_changed`). Spread into
 * `CONFIG_FIELDS` (`./fields.ts`).
 * @module
 */
import { z } from "zod";
import { eicProblem } from "../domain/eic.ts";
import { parseDay } from "../domain/delivery_day.ts";
import { CALENDAR_TSOS } from "../domain/tso_calendars.ts";

const ENTRY = /^([^=]+)=(\d{4}-\d{2}-\d{2})$/;

const entry = z.string().regex(ENTRY, "expected TSO EIC=YYYY-MM-DD").superRefine((v, ctx) => {
  const [, eic, date] = ENTRY.exec(v) ?? [];
  if (!eic) return;
  const problem = eicProblem(eic);
  if (problem) {
    ctx.addIssue({
      code: "custom",
      message: `not a valid EIC ${eic}: ${problem}`,
      params: { type: "value_error.eic" },
    });
  }
  try {
    parseDay(date);
  } catch {
    ctx.addIssue({
      code: "custom",
      message: `${date} is not a calendar date`,
      params: { type: "value_error.date" },
    });
  }
});

/** The fields (each a `FieldDef` of `./fields.ts`). */
export const POST_DELIVERY_FIELDS = {
  tso_non_working_days: {
    env: "TSO_NON_WORKING_DAYS",
    schema: z.array(entry).max(500).superRefine((list, ctx) => {
      const seen = new Set<string>();
      for (const e of list) {
        if (seen.has(e)) {
          ctx.addIssue({
            code: "custom",
            message: `${e} is listed twice`,
            params: { type: "value_error.duplicate" },
          });
        }
        seen.add(e);
      }
    }),
    default: [] as string[],
    fromEnv: (raw: string) => raw.split(",").map((s) => s.trim()).filter(Boolean),
    description:
      "extra days without post-delivery corrections per TSO (TSO EIC=YYYY-MM-DD, …), beyond its calendar: e.g. the own days of 50Hertz or TransnetBW, whose calendars are not built in",
  },
};

/** The configured non-working days of TSO `tso` (`YYYY-MM-DD`, sorted). */
export function nonWorkingDaysOf(entries: readonly string[], tso: string): string[] {
  return entries.map((e) => e.split("=")).filter(([t]) => t === tso).map(([, d]) => d).sort();
}

/**
 * Entries naming a TSO this service does not know: neither one with a built-in calendar nor one
 * configured in `tso_party_eics` (a cross-field rule, `crossFieldProblems` of `./fields.ts`).
 * @param entries `tso_non_working_days`
 * @param overrides `tso_party_eics` (`control-area EIC=TSO EIC`)
 * @returns one sentence per unknown TSO, naming the known ones
 */
export function nonWorkingDaysProblems(
  entries: readonly string[],
  overrides: readonly string[],
): string[] {
  const known = new Set([...CALENDAR_TSOS, ...overrides.map((o) => o.split("=")[1])]);
  const unknown = [...new Set(entries.map((e) => e.split("=")[0]))].filter((t) => !known.has(t));
  return unknown.map((t) =>
    `${t} is not a TSO this service sends schedules to (known: ${
      [...known].join(", ")
    }; another TSO comes in through tso_party_eics)`
  );
}
