/**
 * Baseline servers (docs/benchmarks.md, "The rig"): plain `Deno.serve` on 127.0.0.1 port 0
 * (prints `LISTENING <url>`), one handler per `BARE_MODE`, no routing: `json` (default)
 * `{"ok":true}`; `headers` the same with the 13 headers the app sent on every JSON answer before
 * issue 2; `body` answers `BARE_BODY` with the `[name, value]` pairs of `BARE_HEADERS` in order;
 * `parse` reads the JSON body; `store` the least a batch ingestion must do: parse, then every
 * `forecasts` (or `market_locations`) item and a counter in one `kv.atomic()` to `KV_PATH`, no
 * validation, reads, lock or event; `sse` an event stream to every `GET`, and
 * `POST /__bench/append?rate=&seconds=` sends messages shaped like the app's to all streams.
 * @module
 */

const mode = Deno.env.get("BARE_MODE") ?? "json";
const encoder = new TextEncoder();
const wallMs = () => performance.timeOrigin + performance.now();
const streams = new Set<ReadableStreamDefaultController<Uint8Array>>();

function openStream(): Response {
  let ctl: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      ctl = c;
      streams.add(c);
      c.enqueue(encoder.encode("retry: 3000\n\n"));
    },
    cancel() {
      streams.delete(ctl);
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store" },
  });
}

async function fanOut(rate: number, seconds: number): Promise<Response> {
  const total = Math.min(Math.round(rate * seconds), 100_000);
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const record = {
      kind: "config_changed",
      message: "benchmark fan-out event",
      data: { sent: wallMs(), seq: i },
      level: "info",
      id: i + 1,
      ts: new Date().toISOString(),
    };
    const bytes = encoder.encode(
      `id: ${record.id}\nevent: ${record.kind}\ndata: ${JSON.stringify(record)}\n\n`,
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

const APP_HEADERS: Record<string, string> = {
  "content-type": "application/json",
  "x-request-id": "bd71f722-5bf8-4cae-b697-5c07cef692fd",
  "cross-origin-resource-policy": "same-origin",
  "cross-origin-opener-policy": "same-origin",
  "origin-agent-cluster": "?1",
  "referrer-policy": "no-referrer",
  "strict-transport-security": "max-age=15552000; includeSubDomains",
  "x-content-type-options": "nosniff",
  "x-dns-prefetch-control": "off",
  "x-download-options": "noopen",
  "x-frame-options": "DENY",
  "x-permitted-cross-domain-policies": "none",
  "x-xss-protection": "0",
};

const BODY = Deno.env.get("BARE_BODY") ?? "{}";
const BODY_HEADERS: [string, string][] = JSON.parse(
  Deno.env.get("BARE_HEADERS") ??
    '[["content-type","application/json"],["x-content-type-options","nosniff"],["cache-control","no-store"]]',
);

const kv = mode === "store" ? await Deno.openKv(Deno.env.get("KV_PATH")) : undefined;

interface Item {
  market_location_id?: string;
  malo_id?: string;
  delivery_day?: string;
  values?: number[];
}

async function store(req: Request): Promise<Response> {
  const body = await req.json();
  const list: Item[] | undefined = Array.isArray(body?.forecasts)
    ? body.forecasts
    : Array.isArray(body?.market_locations)
    ? body.market_locations
    : undefined;
  if (!list) return Response.json({ detail: "no batch" }, { status: 422 });
  const at = new Date().toISOString();
  const op = kv!.atomic();
  const counters = new Set<string>();
  for (const it of list) {
    if (it.market_location_id && it.delivery_day) {
      op.set(["forecasts", it.delivery_day, it.market_location_id], {
        values: it.values,
        source: "customer",
        received_at: at,
        by: "bench",
      });
      counters.add(it.delivery_day);
    } else {
      op.set(["market_locations", String(it.malo_id)], { ...it, updated_at: at });
      counters.add("master_data");
    }
  }
  for (const c of counters) op.sum(["version", c], 1n);
  if (!(await op.commit()).ok) return Response.json({ detail: "commit failed" }, { status: 500 });
  return Response.json({ ok: true, n: list.length });
}

const handlers: Record<string, Deno.ServeHandler> = {
  json: () => new Response(JSON.stringify({ ok: true })),
  headers: () => new Response(JSON.stringify({ ok: true }), { headers: APP_HEADERS }),
  body: () => new Response(BODY, { headers: BODY_HEADERS }),
  parse: async (req) => {
    const body = await req.json();
    const n = Array.isArray(body?.forecasts) ? body.forecasts.length : 1;
    return new Response(JSON.stringify({ ok: true, n }));
  },
  store,
  sse: (req) => {
    if (req.method === "GET") return openStream();
    const q = new URL(req.url).searchParams;
    return fanOut(Number(q.get("rate") ?? 100), Number(q.get("seconds") ?? 10));
  },
};
if (!handlers[mode]) throw new Error(`BARE_MODE must be one of ${Object.keys(handlers)}`);

const ac = new AbortController();
const server = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  signal: ac.signal,
  onListen: ({ port }) => console.log(`LISTENING http://127.0.0.1:${port}`),
}, handlers[mode]);

const onTerm = async () => {
  Deno.removeSignalListener("SIGTERM", onTerm);
  for (const c of streams) {
    try {
      c.close();
    } catch { /* gone */ }
  }
  ac.abort();
  const timer = setTimeout(() => Deno.exit(0), 3000);
  await server.finished;
  kv?.close();
  clearTimeout(timer);
};
Deno.addSignalListener("SIGTERM", onTerm);
