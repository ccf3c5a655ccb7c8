/**
 * The `operationId` of a route in the OpenAPI document (docs/architecture.md, "API description
 * and version"): derived from the method and the path, so that a route added later gets a stable,
 * readable name without declaring one, and generated clients keep their method names as long as
 * the route keeps its path. A route may declare its own (`RouteSpec.operationId`) when the
 * derived name reads badly; {@link RouteTable} refuses two routes with one name.
 * @module
 */

/**
 * The derived `operationId`: the lower-case method, then every literal path segment in camelCase
 * (`-`, `_` and `.` split words), without the version segment `v1`; a segment followed by a
 * `{param}` is named in the singular (one item of the collection), the parameters themselves
 * are left out.
 *
 * Examples: `GET /v1/delivery-days/{day}/schedules/{control_area}` → `getDeliveryDaySchedule`,
 * `PUT /v1/market-locations` → `putMarketLocations`, `GET /v1/openapi.json` → `getOpenapiJson`.
 * @param method HTTP method, any case
 * @param path OpenAPI path with `{param}` placeholders
 */
export function deriveOperationId(method: string, path: string): string {
  const segments = path.split("/").filter((s) => s !== "");
  const words: string[] = [];
  segments.forEach((segment, i) => {
    if (/^\{\w+\}$/.test(segment)) return;
    if (i === 0 && /^v\d+$/.test(segment)) return;
    const nextIsParam = /^\{\w+\}$/.test(segments[i + 1] ?? "");
    const parts = segment.split(/[-_.]/).filter((p) => p !== "");
    if (nextIsParam && parts.length) parts.push(singular(parts.pop()!));
    words.push(...parts);
  });
  return method.toLowerCase() + words.map(capitalise).join("");
}

/** English singular of a plural path word (`days` → `day`, `passes` → `pass`, `entries` → `entry`). */
function singular(word: string): string {
  if (/[^aeiou]ies$/.test(word)) return word.slice(0, -3) + "y";
  if (/(ss|sh|ch|x)es$/.test(word)) return word.slice(0, -2);
  if (/[^su]s$/.test(word)) return word.slice(0, -1);
  return word;
}

const capitalise = (w: string) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase();
