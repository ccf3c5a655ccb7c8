/**
 * Test fixture: Debian's `prometheus` and `promtool` (docs/metrics.md). The tests run when
 * `/usr/bin/promtool` and `/usr/bin/prometheus` (or `PROMTOOL_PATH`, `PROMETHEUS_PATH`) exist;
 * without them they are skipped with a printed reason, unless `REQUIRE_E2E=1` (set by `.ci/run`):
 * then they run and fail.
 * @module
 */
import { freePort } from "./net.ts";
import { REQUIRE_E2E } from "./chromium.ts";

/** The `promtool` binary. */
export const PROMTOOL_PATH = Deno.env.get("PROMTOOL_PATH") ?? "/usr/bin/promtool";
/** The `prometheus` binary. */
export const PROMETHEUS_PATH = Deno.env.get("PROMETHEUS_PATH") ?? "/usr/bin/prometheus";

function missing(path: string): string | null {
  try {
    return Deno.statSync(path).isFile ? null : `${path} is not a file`;
  } catch {
    return `${path} not found (apt-get install -y prometheus)`;
  }
}

/**
 * Whether to register the tests that need `path` as ignored. Prints the reason when skipping;
 * with `REQUIRE_E2E=1` never skips (the run then fails the test).
 */
export function skipWithout(path: string, suite: string): boolean {
  const why = missing(path);
  if (!why || REQUIRE_E2E) return false;
  console.log(`SKIP ${suite}: ${why}; set REQUIRE_E2E=1 to make this a failure.`);
  return true;
}

/** Runs `promtool` with `args` (and `stdin`); resolves with its exit code and output. */
export async function promtool(
  args: string[],
  stdin?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(PROMTOOL_PATH, {
    args,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(stdin));
    await w.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** A running Prometheus on loopback. */
export interface PrometheusServer {
  /** Base URL of its HTTP API, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Instant query: the result vector of `/api/v1/query?query=...`. */
  query(promql: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  /** Stops the process and removes its storage. */
  close(): Promise<void>;
}

/**
 * Starts `prometheus` on 127.0.0.1 (a free port picked by {@link freePort}: Prometheus cannot
 * bind port 0 and tell its port) with a temp storage directory, scraping `target`
 * (`host:port`, path `/metrics`) every second.
 * @throws when it does not answer `/-/ready` within 20 s (its log is in the message)
 */
export async function startPrometheus(target: string): Promise<PrometheusServer> {
  const dir = await Deno.makeTempDir({ prefix: "bridge-prometheus-" });
  await Deno.writeTextFile(
    `${dir}/prometheus.yml`,
    [
      "global:",
      "  scrape_interval: 1s",
      "  evaluation_interval: 1s",
      "scrape_configs:",
      "  - job_name: bridge",
      "    static_configs:",
      `      - targets: ["${target}"]`,
      "",
    ].join("\n"),
  );
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = new Deno.Command(PROMETHEUS_PATH, {
    args: [
      `--config.file=${dir}/prometheus.yml`,
      `--storage.tsdb.path=${dir}/data`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--web.enable-lifecycle",
    ],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const log: string[] = [];
  const reading = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (chunk) => void log.push(chunk) }),
  ).catch(() => {});
  const close = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
    await child.status;
    await reading;
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    const ok = await fetch(`${url}/-/ready`).then((r) => r.body?.cancel().then(() => r.ok))
      .catch(() => false);
    if (ok) break;
    if (Date.now() > deadline) {
      await close();
      throw new Error(`prometheus did not get ready:\n${log.join("").slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    async query(promql) {
      const r = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = await r.json();
      if (body.status !== "success") throw new Error(`query ${promql}: ${JSON.stringify(body)}`);
      return body.data.result;
    },
    close,
  };
}
