/**
 * Runtime fields of the day's deadlines and intraday versions (docs/intraday.md, docs/console.md
 * "Attention"): when missing forecasts become a warning, the lead time that freezes quarter-hours
 * and the least change that makes a new version. Spread into `CONFIG_FIELDS` (`./fields.ts`).
 * @module
 */
import { z } from "zod";

const hhmm = z.string().regex(
  /^([01]\d|2[0-3]):[0-5]\d$/,
  "expected local time HH:MM (00:00–23:59)",
);
const num = (raw: string) => (/^\d+$/.test(raw.trim()) ? Number(raw.trim()) : raw);
const decimal = (raw: string) => (/^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw.trim()) : raw);

/** The intraday fields. */
export const INTRADAY_FIELDS = {
  forecast_due_local_time: {
    env: "FORECAST_DUE_LOCAL_TIME",
    schema: hhmm,
    default: null,
    description:
      "from when a day's missing forecasts are a warning, Europe/Berlin local time on the day before delivery (unset: the TSO deadline); before it they are information",
  },
  intraday_lead_minutes: {
    env: "INTRADAY_LEAD_MINUTES",
    schema: z.number().int().min(15).max(180).multipleOf(15, "expected a multiple of 15 minutes"),
    default: 15,
    fromEnv: num,
    description:
      "lead time of an intraday schedule version in minutes (15–180, multiples of 15): quarter-hours starting sooner are frozen",
  },
  intraday_min_change_mw: {
    env: "INTRADAY_MIN_CHANGE_MW",
    schema: z.number().min(0.001).max(1_000_000),
    default: 0.001,
    fromEnv: decimal,
    description:
      "least change in MW of one open quarter-hour that makes a new intraday schedule version (0.001 = the documents' resolution)",
  },
} as const;
