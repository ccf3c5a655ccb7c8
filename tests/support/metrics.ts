/**
 * Reading the metrics' text in tests (docs/metrics.md).
 * @module
 */

/**
 * The value of the first sample `name{labels…}` in the exposition `text` whose labels include
 * `labels`, or `undefined` when there is none.
 */
export function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const line of text.split("\n")) {
    const m = line.match(/^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries(
      [...(m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}
