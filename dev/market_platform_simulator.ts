/**
 * Market-platform simulator (docs/pipeline.md, "Submit"): a real HTTPS server with a self-signed certificate made
 * at start, implementing the submission contract the bridge uses:
 *
 * - `POST /schedules` with the key raw in `authorization` (else 401) and an `idempotency-key`
 *   (else 400). A new key → 201 `{submission_id, received_at, delivery_day, aggregate_version}`;
 *   a key seen before → 200 with the same receipt, nothing stored twice. A malformed body → 400.
 * - `GET /schedules` (same key) → every stored submission, for tests and the demo.
 *
 * It can be told to fail (`failNext(status, body, times)`) or to delay answers (`delay(ms)`).
 * Standalone: `deno run -A dev/market_platform_simulator.ts` prints URL, key and CA file.
 * @module
 */
import selfsigned from "selfsigned";

/** One stored submission. */
export interface SimulatedSubmission {
  submission_id: string;
  received_at: string;
  idempotency_key: string;
  body: {
    delivery_day: string;
    aggregate_version: number;
    schedules: { control_area: string; quantities: number[] }[];
    [k: string]: unknown;
  };
}

/** A running simulator. */
export interface Simulator {
  /** `https://127.0.0.1:<port>` */
  url: string;
  /** PEM of the self-signed certificate (trust it with `Deno.createHttpClient({caCerts})`). */
  caCert: string;
  apiKey: string;
  /** Stored submissions, in arrival order. */
  submissions(): SimulatedSubmission[];
  /** Number of POST requests received (including failed and repeated ones). */
  requests(): number;
  /** The next `times` POSTs answer `status` with `body`. */
  failNext(status: number, body: string, times?: number): void;
  /** Every answer waits `ms` first. */
  delay(ms: number): void;
  close(): Promise<void>;
}

/**
 * Starts the simulator on 127.0.0.1.
 * @param opts.apiKey expected `authorization` value (default: random)
 * @param opts.port default 0 (ephemeral)
 */
export async function startSimulator(
  opts: { apiKey?: string; port?: number } = {},
): Promise<Simulator> {
  const apiKey = opts.apiKey ?? `sim-${crypto.randomUUID()}`;
  const pems = await selfsigned.generate([{ name: "commonName", value: "127.0.0.1" }], {
    keySize: 2048,
    notAfterDate: new Date(Date.now() + 7 * 86_400_000),
    algorithm: "sha256",
    extensions: [{
      name: "subjectAltName",
      altNames: [{ type: 7, ip: "127.0.0.1" }, { type: 2, value: "localhost" }],
    }],
  });
  const stored: SimulatedSubmission[] = [];
  const byKey = new Map<string, SimulatedSubmission>();
  let failures: { status: number; body: string; times: number } | undefined;
  let delayMs = 0;
  let requests = 0;
  const ac = new AbortController();
  const { promise, resolve } = Promise.withResolvers<number>();
  const json = (status: number, body: unknown) => Response.json(body, { status });

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: opts.port ?? 0,
    cert: pems.cert,
    key: pems.private,
    signal: ac.signal,
    onListen: ({ port }) => resolve(port),
  }, async (req) => {
    const path = new URL(req.url).pathname;
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    if (req.headers.get("authorization") !== apiKey) {
      return json(401, {
        error: "unauthorized",
        message: "authorization header does not carry the platform key",
      });
    }
    if (path === "/schedules" && req.method === "GET") return json(200, { submissions: stored });
    if (path !== "/schedules" || req.method !== "POST") return json(404, { error: "not_found" });
    requests++;
    const text = await req.text();
    if (failures && failures.times > 0) {
      failures.times--;
      return new Response(failures.body, {
        status: failures.status,
        headers: { "content-type": "text/plain" },
      });
    }
    const key = req.headers.get("idempotency-key");
    if (!key) return json(400, { error: "missing_idempotency_key" });
    const prior = byKey.get(key);
    if (prior) return json(200, receipt(prior));
    let body: SimulatedSubmission["body"];
    try {
      body = JSON.parse(text);
      if (typeof body.delivery_day !== "string" || !Array.isArray(body.schedules)) {
        throw new Error();
      }
    } catch {
      return json(400, { error: "invalid_body", message: "expected delivery_day and schedules" });
    }
    const sub: SimulatedSubmission = {
      submission_id: crypto.randomUUID(),
      received_at: new Date().toISOString(),
      idempotency_key: key,
      body,
    };
    stored.push(sub);
    byKey.set(key, sub);
    return json(201, receipt(sub));
  });
  const port = await promise;
  return {
    url: `https://127.0.0.1:${port}`,
    caCert: pems.cert,
    apiKey,
    submissions: () => [...stored],
    requests: () => requests,
    failNext(status, body, times = 1) {
      failures = { status, body, times };
    },
    delay(ms) {
      delayMs = ms;
    },
    async close() {
      ac.abort();
      await server.finished;
    },
  };
}

function receipt(s: SimulatedSubmission) {
  return {
    submission_id: s.submission_id,
    received_at: s.received_at,
    delivery_day: s.body.delivery_day,
    aggregate_version: s.body.aggregate_version,
  };
}

if (import.meta.main) {
  const sim = await startSimulator({ port: Number(Deno.env.get("PORT") ?? 0) });
  const caFile = await Deno.makeTempFile({ prefix: "simulator-ca-", suffix: ".pem" });
  await Deno.writeTextFile(caFile, sim.caCert);
  console.log(`market platform simulator on ${sim.url}\n  key: ${sim.apiKey}\n  CA:  ${caFile}`);
}
