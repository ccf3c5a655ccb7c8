/**
 * Issue 3c — stream fan-out: `CLIENTS` (100, then 1,000) open SSE streams
 * (`/v1/console/events/stream?token=`, token from `POST /v1/console/stream-token`) while events
 * are appended inside the server through its own `EventLog` at `RATE` events/s for `SECONDS`
 * (`bench/servers/app.ts`, `BENCH_CONTROL=1`). Every event carries its send instant; each client
 * records receive − send per event. Baseline, same run, same clients and rate: a bare
 * `Deno.serve` SSE fan-out (`bench/servers/bare.ts`, `BARE_MODE=sse`) sending messages of the same
 * shape and size. Servers each run in their own process; the readers all live in this one.
 * The first half second of events is warm-up and not counted.
 *
 * Readers: `tcp` (default) speaks HTTP/1.1 over `Deno.connect` to the loopback port and reads
 * into a 256 KiB buffer, so a reader that falls behind catches up in one read (cheap enough for
 * 1,000 streams × 100 events/s on 2 cores); `fetch` uses `fetch()` body streams, one JS chunk
 * per server write, which saturates this process at 1,000 streams and then measures the client.
 *
 * Env: `BENCH_CLIENTS` ("100,1000"), `BENCH_RATE` (100), `BENCH_STREAM_SECONDS` (10),
 * `BENCH_READER` ("tcp" | "fetch"), `BENCH_CPU_PROF=<dir>` (profile the app; prints a summary).
 * Run alone: `deno run -A bench/stream_fanout.ts`
 * @module
 */
import { printProfiles } from "./cpuprofile.ts";
import { report, type Row, sleep, spawnServer, stats, tempDir, wallMs } from "./common.ts";

const PART = "3c stream fan-out";
const CLIENTS = (Deno.env.get("BENCH_CLIENTS") ?? "100,1000").split(",").map(Number);
const RATE = Number(Deno.env.get("BENCH_RATE") ?? 100);
const SECONDS = Number(Deno.env.get("BENCH_STREAM_SECONDS") ?? 10);
const WARM_SEQ = Math.round(RATE / 2);
const READER = Deno.env.get("BENCH_READER") ?? "tcp";
/** `BENCH_CPU_PROF=<dir>`: run the app with `--cpu-prof` and print where its time went. */
const PROF_DIR = Deno.env.get("BENCH_CPU_PROF");

/** A raw HTTP/1.1 GET on loopback; the body (chunked framing included) as a byte stream. */
async function tcpStream(url: string): Promise<ReadableStream<Uint8Array>> {
  const u = new URL(url);
  const conn = await Deno.connect({ hostname: u.hostname, port: Number(u.port) });
  const head = `GET ${u.pathname}${u.search} HTTP/1.1\r\nhost: ${u.host}\r\n` +
    "accept: text/event-stream\r\n\r\n";
  await conn.write(new TextEncoder().encode(head));
  const buf = new Uint8Array(256 * 1024);
  let first = true;
  return new ReadableStream<Uint8Array>({
    async pull(c) {
      const n = await conn.read(buf);
      if (n === null) {
        c.close();
        conn.close();
        return;
      }
      const chunk = buf.slice(0, n);
      if (first) {
        first = false;
        const status = /^HTTP\/1\.1 (\d{3})/.exec(new TextDecoder().decode(chunk.subarray(0, 16)));
        if (status?.[1] !== "200") throw new Error(`stream answered ${status?.[1]}`);
      }
      c.enqueue(chunk);
    },
    cancel() {
      try {
        conn.close();
      } catch { /* closed */ }
    },
  }, { highWaterMark: 0 });
}

async function openStream(url: string): Promise<ReadableStream<Uint8Array>> {
  if (READER === "tcp") return await tcpStream(url);
  const res = await fetch(url);
  if (res.status !== 200 || !res.body) throw new Error(`stream answered ${res.status}`);
  return res.body;
}

interface Outcome {
  latencies: number[];
  delivered: number;
  expected: number;
  commit?: { p50: number; p99: number; max: number };
}

/** Opens `clients` streams, triggers the appends, collects latencies, closes everything. */
async function runOnce(streamUrl: string, appendUrl: string, clients: number): Promise<Outcome> {
  const latencies: number[] = [];
  const readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  let closing = false;
  let delivered = 0;
  const readLoop = async (body: ReadableStream<Uint8Array>) => {
    const reader = body.getReader();
    readers.push(reader);
    const decoder = new TextDecoder();
    let buf = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const now = wallMs();
        buf += decoder.decode(value, { stream: true });
        const end = buf.lastIndexOf("\n\n");
        if (end < 0) continue;
        const complete = buf.slice(0, end);
        buf = buf.slice(end + 2);
        for (let i = complete.indexOf('"sent":'); i >= 0; i = complete.indexOf('"sent":', i + 7)) {
          const sent = parseFloat(complete.slice(i + 7, i + 40));
          const s = complete.indexOf('"seq":', i);
          delivered++;
          if (parseInt(complete.slice(s + 6, s + 20)) >= WARM_SEQ) latencies.push(now - sent);
        }
      }
    } catch (err) {
      if (!closing) throw err;
    }
  };
  const loops: Promise<void>[] = [];
  for (let i = 0; i < clients; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, clients - i) }, async () => {
      loops.push(readLoop(await openStream(streamUrl)));
    }));
  }
  await sleep(500); // let every subscription register
  const res = await fetch(appendUrl, { method: "POST" });
  const { appended, failed, commit_ms } = await res.json() as {
    appended: number;
    failed: number;
    commit_ms?: Outcome["commit"];
  };
  if (failed) throw new Error(`${failed} appends failed`);
  const expected = appended * clients;
  const deadline = Date.now() + 5_000;
  while (delivered < expected && Date.now() < deadline) await sleep(50);
  closing = true;
  await Promise.allSettled(readers.map((r) => r.cancel()));
  await Promise.allSettled(loops);
  return { latencies, delivered, expected, commit: commit_ms };
}

export async function main(): Promise<Row[]> {
  const dir = await tempDir("bench-fanout-");
  const apiKey = `bench-${crypto.randomUUID()}`;
  const app = await spawnServer("bench/servers/app.ts", {
    KV_PATH: `${dir.path}/bridge.kv`,
    PROCESS_API_KEYS: `ops:${apiKey}`,
    RATE_LIMIT_PER_MINUTE: "0",
    BENCH_CONTROL: "1",
  }, PROF_DIR ? ["--cpu-prof", `--cpu-prof-dir=${PROF_DIR}`] : []);
  const bare = await spawnServer("bench/servers/bare.ts", { BARE_MODE: "sse" });
  const rows: Row[] = [];
  try {
    const tokenRes = await fetch(`${app.url}/v1/console/stream-token`, {
      method: "POST",
      headers: { "x-api-key": apiKey },
    });
    const { token } = await tokenRes.json() as { token: string };
    const q = `rate=${RATE}&seconds=${SECONDS}`;
    for (const clients of CLIENTS) {
      const b = await runOnce(`${bare.url}/stream`, `${bare.url}/__bench/append?${q}`, clients);
      const a = await runOnce(
        `${app.url}/v1/console/events/stream?token=${token}`,
        `${app.url}/__bench/append?${q}`,
        clients,
      );
      const sa = stats(a.latencies), sb = stats(b.latencies);
      console.log(
        `${clients} clients: app p50 ${sa.p50.toFixed(2)} p99 ${sa.p99.toFixed(2)} max ${
          sa.max.toFixed(1)
        } ms (${a.delivered}/${a.expected}); bare p50 ${sb.p50.toFixed(2)} p99 ${
          sb.p99.toFixed(2)
        } max ${sb.max.toFixed(1)} ms (${b.delivered}/${b.expected})`,
      );
      rows.push({
        part: PART,
        metric: `${clients} SSE clients, ${RATE} ev/s × ${SECONDS} s: append→receive p99 (p50 ${
          sa.p50.toFixed(2)
        } vs ${sb.p50.toFixed(2)} ms)`,
        value: sa.p99,
        unit: "ms",
        baseline: "bare SSE fan-out",
        baselineValue: sb.p99,
        ratio: sa.p99 / sb.p99,
        goal: "p99 ≤ 1.5× bare",
        met: sa.p99 <= 1.5 * sb.p99 && a.delivered === a.expected,
        note:
          `${READER} readers; delivered app ${a.delivered}/${a.expected}, bare ${b.delivered}/${b.expected}; max app ${
            sa.max.toFixed(1)
          } ms, bare ${sb.max.toFixed(1)} ms; app append→commit p50 ${
            a.commit?.p50.toFixed(2)
          } p99 ${a.commit?.p99.toFixed(2)} max ${a.commit?.max.toFixed(1)} ms`,
      });
    }
    return rows;
  } finally {
    await app.stop();
    await bare.stop();
    await dir.remove();
    if (PROF_DIR) await printProfiles(PROF_DIR);
  }
}

if (import.meta.main) report(await main());
