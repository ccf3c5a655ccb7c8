/**
 * Baseline servers (docs/benchmarks.md, "The rig"): plain `Deno.serve` on 127.0.0.1 port 0
 * (prints `LISTENING <url>`), one handler per `BARE_MODE` (see {@link handlers}): `json`,
 * `headers`, `body`, `parse`, `store` (the least a batch upload must do) and `sse`.
 * @module
 */

const env = Deno.env.toObject();
const encoder = new TextEncoder();
const streams = new Set<ReadableStreamDefaultController<Uint8Array>>();
const kv = env.BARE_MODE === "store" ? await Deno.openKv(env.KV_PATH) : undefined;

/** The app's JSON answer headers before issue 2 (the `headers` mode). */
const APP_HEADERS = Object.fromEntries([
  ["content-type", "application/json"],
  ["x-request-id", "bd71f722-5bf8-4cae-b697-5c07cef692fd"],
  ["cross-origin-resource-policy", "same-origin"],
  ["cross-origin-opener-policy", "same-origin"],
  ["origin-agent-cluster", "?1"],
  ["referrer-policy", "no-referrer"],
  ["strict-transport-security", "max-age=15552000; includeSubDomains"],
  ...["x-content-type-options:nosniff", "x-dns-prefetch-control:off", "x-download-options:noopen"]
    .map((h) => h.split(":")),
  ...["x-frame-options:DENY", "x-permitted-cross-domain-policies:none", "x-xss-protection:0"]
    .map((h) => h.split(":")),
]);
const BODY_HEADERS: [string, string][] = JSON.parse(
  env.BARE_HEADERS ??
    '[["content-type","application/json"],["x-content-type-options","nosniff"],["cache-control","no-store"]]',
);

/** Sends `rate` messages a second for `seconds` to every open stream, each encoded once. */
async function fanOut(rate: number, seconds: number): Promise<Response> {
  const total = Math.min(Math.round(rate * seconds), 100_000);
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const wait = t0 + (i * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const data = { sent: performance.timeOrigin + performance.now(), seq: i };
    const [id, ts, kind] = [i + 1, new Date().toISOString(), "config_changed"];
    const record = { kind, message: "benchmark fan-out event", data, level: "info", id, ts };
    const bytes = encoder.encode(
      `id: ${i + 1}\nevent: ${record.kind}\ndata: ${JSON.stringify(record)}\n\n`,
    );
    for (const c of streams) {
      try {
        c.enqueue(bytes);
      } catch {
        streams.delete(c);
      }
    }
  }
  return Response.json({ appended: total, failed: 0 });
}

/** The `store` mode: every item and a counter per day (or master data) in one atomic. */
async function store(req: Request): Promise<Response> {
  const body = await req.json();
  const list: Record<string, unknown>[] | undefined = body?.forecasts ?? body?.market_locations;
  if (!Array.isArray(list)) return Response.json({ detail: "no batch" }, { status: 422 });
  const at = new Date().toISOString();
  const op = kv!.atomic();
  const counters = new Set<string>();
  for (const it of list) {
    const day = it.delivery_day as string | undefined;
    if (day) {
      op.set(["forecasts", day, String(it.market_location_id)], {
        values: it.values,
        source: "customer",
        received_at: at,
        by: "bench",
      });
    } else op.set(["market_locations", String(it.malo_id)], { ...it, updated_at: at });
    counters.add(day ?? "master_data");
  }
  for (const c of counters) op.sum(["version", c], 1n);
  if (!(await op.commit()).ok) return Response.json({ detail: "commit failed" }, { status: 500 });
  return Response.json({ ok: true, n: list.length });
}

const handlers: Record<string, Deno.ServeHandler> = {
  json: () => new Response(JSON.stringify({ ok: true })),
  headers: () => new Response(JSON.stringify({ ok: true }), { headers: APP_HEADERS }),
  body: () => new Response(env.BARE_BODY ?? "{}", { headers: BODY_HEADERS }),
  parse: async (req) => Response.json({ ok: true, n: (await req.json())?.forecasts?.length ?? 1 }),
  store,
  sse: (req) => {
    const q = new URL(req.url).searchParams;
    if (req.method !== "GET") {
      return fanOut(Number(q.get("rate") ?? 100), Number(q.get("seconds") ?? 10));
    }
    let ctl: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start: (c) => void (streams.add(ctl = c), c.enqueue(encoder.encode("retry: 3000\n\n"))),
      cancel: () => void streams.delete(ctl),
    });
    return new Response(body, {
      headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store" },
    });
  },
};
const handler = handlers[env.BARE_MODE ?? "json"];
if (!handler) throw new Error(`BARE_MODE must be one of ${Object.keys(handlers)}`);

const ac = new AbortController();
const onListen = ({ port }: { port: number }) => console.log(`LISTENING http://127.0.0.1:${port}`);
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen }, handler);
Deno.addSignalListener("SIGTERM", async () => {
  for (const c of streams) {
    try {
      c.close();
    } catch { /* gone */ }
  }
  ac.abort();
  setTimeout(() => Deno.exit(0), 3000);
  await server.finished;
  kv?.close();
  Deno.exit(0);
});
