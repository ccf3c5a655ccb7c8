/**
 * The `stream_fanout` part (docs/benchmarks.md, "stream_fanout"): `BENCH_CLIENTS` (100, then
 * 1,000) open SSE streams of the console while the rig's app (`BENCH_CONTROL=1`) appends events
 * through its own `EventLog` at `BENCH_RATE` (100) per second for `BENCH_STREAM_SECONDS` (10);
 * each client records receive − send per event (the first half second not counted). Baseline,
 * same run: the bare SSE fan-out (`bench/servers/bare.ts`, `sse`) with messages of the same shape.
 * Readers (`BENCH_READER`): `tcp` (raw HTTP/1.1 into a 256 KiB buffer, cheap enough for 1,000
 * streams on 2 cores) or `fetch`. Goal: p99 ≤ 1.5× bare, every event delivered.
 * @module
 */
import { printProfiles } from "./profile.ts";
import {
  num,
  report,
  type Row,
  row,
  sleep,
  spawnServer,
  stats,
  tempDir,
  wallMs,
} from "./common.ts";
import { call } from "./http.ts";
import { startApp } from "./rig.ts";

const PART = "3c stream fan-out";
const CLIENTS = (Deno.env.get("BENCH_CLIENTS") ?? "100,1000").split(",").map(Number);
const RATE = num("BENCH_RATE", 100);
const SECONDS = num("BENCH_STREAM_SECONDS", 10);
const WARM_SEQ = Math.round(RATE / 2);
const READER = Deno.env.get("BENCH_READER") ?? "tcp";

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

/** Runs the part; its rows. */
export async function main(): Promise<Row[]> {
  const dir = await tempDir("bench-fanout-");
  const app = await startApp(dir.path, { pinned: false, env: { BENCH_CONTROL: "1" } });
  const bare = await spawnServer("bench/servers/bare.ts", { BARE_MODE: "sse" });
  try {
    const tokenUrl = `${app.url}/v1/console/stream-token`;
    const { text } = await call(tokenUrl, { method: "POST", headers: app.procAuth });
    const token = JSON.parse(text).token as string;
    const q = `rate=${RATE}&seconds=${SECONDS}`;
    const rows: Row[] = [];
    for (const clients of CLIENTS) {
      const b = await runOnce(`${bare.url}/stream`, `${bare.url}/__bench/append?${q}`, clients);
      const streamUrl = `${app.url}/v1/console/events/stream?token=${token}`;
      const a = await runOnce(streamUrl, `${app.url}/__bench/append?${q}`, clients);
      const sa = stats(a.latencies), sb = stats(b.latencies);
      const f = (v: number | undefined) => v?.toFixed(2);
      rows.push(
        row(
          PART,
          `${clients} SSE clients, ${RATE} ev/s × ${SECONDS} s: append→receive p99`,
          sa.p99,
          "ms",
          {
            base: ["bare SSE fan-out", sb.p99],
            goal: ["p99 ≤ 1.5× bare", sa.p99 <= 1.5 * sb.p99 && a.delivered === a.expected],
            note:
              `${READER} readers; p50 ${f(sa.p50)} vs ${f(sb.p50)} ms, max ${f(sa.max)} vs ${
                f(sb.max)
              } ms; ` +
              `delivered app ${a.delivered}/${a.expected}, bare ${b.delivered}/${b.expected}; ` +
              `app append→commit p50 ${f(a.commit?.p50)} p99 ${f(a.commit?.p99)} max ${
                f(a.commit?.max)
              } ms`,
          },
        ),
      );
    }
    return rows;
  } finally {
    await app.stop();
    await bare.stop();
    await dir.remove();
    const prof = Deno.env.get("BENCH_CPU_PROF");
    if (prof) await printProfiles(prof);
  }
}

if (import.meta.main) report(await main());
