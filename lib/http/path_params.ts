/**
 * Path parameters (docs/api.md, "The document"): the one table of what each `{name}` in a route's
 * path accepts — the pattern its validator enforces, taken from the same constant — and the
 * validators the routes call. The OpenAPI document declares every parameter from here (or from
 * the route's own `params`); a value that does not match is refused with 422 at `["path", name]`.
 * @module
 */
import { DAY_FORMAT, deliveryDay } from "../domain/delivery_day.ts";
import { EIC_FORMAT } from "../domain/eic.ts";
import { MALO_ID_FORMAT } from "../domain/malo.ts";
import { WEATHER_POINT_FORMAT } from "../domain/weather_point.ts";
import { ValidationFailed } from "./errors.ts";
import type { PathParam } from "./route_table.ts";

/** The form of a month, `YYYY-MM`. */
export const MONTH_FORMAT = /^\d{4}-(0[1-9]|1[0-2])$/;

/** Every path parameter name the routes share, with what it accepts. */
export const PATH_PARAMS: Readonly<Record<string, PathParam>> = {
  day: {
    description: "delivery day, a calendar date YYYY-MM-DD (Europe/Berlin)",
    pattern: DAY_FORMAT,
    format: "date",
    example: "2026-11-23",
    refused: 422,
  },
  month: {
    description: "a month YYYY-MM",
    pattern: MONTH_FORMAT,
    example: "2026-11",
    refused: 422,
  },
  control_area: {
    description: "the control area's EIC (16 characters of 0-9, A-Z and -)",
    pattern: EIC_FORMAT,
    example: "10YDE-RWENET---I",
    refused: 422,
  },
  point_id: {
    description:
      "weather point: lat,lon with two decimals (e.g. 52.52,13.42) or a name of letters, digits and _ . : - starting with a letter (e.g. DWD-10384)",
    pattern: WEATHER_POINT_FORMAT,
    example: "52.52,13.42",
    refused: 422,
  },
  malo_id: {
    description:
      "MaLo-ID: 11 digits, the first not 0, the last a check digit (BDEW; a wrong check digit is refused too)",
    pattern: MALO_ID_FORMAT,
    example: "51238696781",
    refused: 422,
  },
};

/** A 422 naming the path parameter. */
function refused(name: string, msg: string, type: string, input: string): ValidationFailed {
  return new ValidationFailed([{ loc: ["path", name], msg, type, input, ctx: {} }]);
}

/** Validates the `{day}` path parameter (a calendar date). @throws {ValidationFailed} */
export function dayParam(raw: string | undefined): string {
  raw ??= "";
  try {
    deliveryDay(raw);
    return raw;
  } catch (err) {
    throw refused("day", (err as Error).message, "value_error.date", raw);
  }
}

/**
 * The control-area path parameter (a 16-character EIC).
 * @throws {ValidationFailed} 422 naming `path.control_area`
 */
export function areaParam(raw: string | undefined): string {
  const area = raw ?? "";
  if (EIC_FORMAT.test(area)) return area;
  throw refused(
    "control_area",
    "expected a control-area EIC (16 characters)",
    "value_error.eic",
    area,
  );
}

/** The month path parameter `YYYY-MM`. @throws {ValidationFailed} */
export function monthParam(raw: string | undefined): string {
  const m = raw ?? "";
  if (MONTH_FORMAT.test(m)) return m;
  throw refused("month", "expected a month YYYY-MM", "value_error.month", m);
}
