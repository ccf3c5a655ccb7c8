/**
 * Weather point identifiers (docs/weather.md, "Weather points"): where a weather series belongs.
 * Two forms:
 *
 * - a coordinate `lat,lon` in decimal degrees with exactly two decimals (0.01°, about 1 km), e.g.
 *   `52.52,13.42` or `-33.87,151.21`; the form an Open-Meteo answer gets
 *   ({@link coordinatePointId} of its grid cell's `latitude` and `longitude`);
 * - a name of 1–64 letters, digits and `_ . : -`, starting with a letter, e.g. `DWD-10384` (a
 *   station) or `park_nord`.
 *
 * A coordinate is written in one way only (`52.50,13.40`, never `52.5,13.4`), so that one place is
 * one point.
 * @module
 */

const COORDINATE = /^(-?\d{1,2}\.\d{2}),(-?\d{1,3}\.\d{2})$/;
const NAME = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;

/** The form of a weather point id (a coordinate or a name; the range of a coordinate aside). */
export const WEATHER_POINT_FORMAT = new RegExp(`${COORDINATE.source}|${NAME.source}`);

/** The point id of a coordinate: `lat,lon` rounded to 0.01° (`-0.00` written `0.00`). */
export function coordinatePointId(latitude: number, longitude: number): string {
  const fixed = (v: number) => {
    const s = v.toFixed(2);
    return s === "-0.00" ? "0.00" : s;
  };
  return `${fixed(latitude)},${fixed(longitude)}`;
}

/**
 * Why `id` is not a weather point id, or `undefined` when it is one. The sentence says what was
 * expected (and, for a coordinate written otherwise, its one spelling).
 */
export function weatherPointProblem(id: string): string | undefined {
  if (NAME.test(id)) return undefined;
  const m = COORDINATE.exec(id);
  if (m) {
    const lat = Number(m[1]), lon = Number(m[2]);
    if (Math.abs(lat) > 90) return `latitude ${m[1]} is outside −90…90`;
    if (Math.abs(lon) > 180) return `longitude ${m[2]} is outside −180…180`;
    if (coordinatePointId(lat, lon) !== id) return `write it ${coordinatePointId(lat, lon)}`;
    return undefined;
  }
  const loose = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(id);
  const hint = loose ? ` (this one: ${coordinatePointId(Number(loose[1]), Number(loose[2]))})` : "";
  return "expected lat,lon in degrees with two decimals, e.g. 52.52,13.42" + hint +
    ", or a name of letters, digits and _ . : - starting with a letter (at most 64), e.g. DWD-10384";
}
