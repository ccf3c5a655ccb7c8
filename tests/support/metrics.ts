/**
 * Reading the metrics' text in tests (docs/metrics.md).
 * @module
 */
import { serveMetrics } from "../../lib/http/metrics_listener.ts";
import type { Registry } from "../../lib/metrics/registry.ts";
import type { Redactor } from "../../lib/store/redactor.ts";

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

/**
 * The metrics listener of a test app on a free loopback port (`lib/http/metrics_listener.ts`),
 * as `main.ts` starts it with `METRICS_PORT`: its port and a close that waits for it to stop.
 */
export async function metricsListener(
  bridge: { metrics: Registry; ctx: { redactor: Redactor } },
): Promise<{ port: number; close(): Promise<void> }> {
  const ac = new AbortController();
  const { promise, resolve } = Promise.withResolvers<number>();
  const server = serveMetrics({
    hostname: "127.0.0.1",
    port: 0,
    registry: bridge.metrics,
    redactor: bridge.ctx.redactor,
    signal: ac.signal,
    onListen: ({ port }) => resolve(port),
  });
  return {
    port: await promise,
    async close() {
      ac.abort();
      await server.finished;
    },
  };
}
