/**
 * The `stream_fanout` part (docs/benchmarks.md, "The parts"): append → receive latency on
 * `BENCH_CLIENTS` (100, 1,000) console streams at `BENCH_RATE` (100) events/s for
 * `BENCH_STREAM_SECONDS` (10), against the bare SSE fan-out; readers on raw sockets.
 * @module
 */
import { num, report, type Row, row, sleep, spawnServer, stats, tempDir } from "./common.ts";
import { wallMs } from "./common.ts";
import { call } from "./http.ts";
import { printProfiles } from "./profile.ts";
import { key, startApp } from "./rig.ts";

const PART = "3c stream fan-out";
const CLIENTS = (Deno.env.get("BENCH_CLIENTS") ?? "100,1000").split(",").map(Number);
const [RATE, SECONDS] = [num("BENCH_RATE", 100), num("BENCH_STREAM_SECONDS", 10)];
const WARM_SEQ = Math.round(RATE / 2);

/** Opens `clients` streams, triggers the appends, collects latencies, closes everything. */
async function runOnce(streamUrl: string, appendUrl: string, clients: number) {
  const latencies: number[] = [];
  const conns: Deno.TcpConn[] = [];
  let delivered = 0;
  /** One stream: a raw GET, then every event's receive − send (`data.sent`, `data.seq`). */
  const reader = async () => {
    const u = new URL(streamUrl);
    const conn = await Deno.connect({ hostname: u.hostname, port: Number(u.port) });
    conns.push(conn);
    const head =
      `GET ${u.pathname}${u.search} HTTP/1.1\r\nhost: ${u.host}\r\naccept: text/event-stream\r\n\r\n`;
    await conn.write(new TextEncoder().encode(head));
    const loop = (async () => {
      const [bytes, decoder] = [new Uint8Array(256 * 1024), new TextDecoder()];
      let [buf, first] = ["", true];
      for (let n; (n = await conn.read(bytes).catch(() => null)) !== null;) {
        const now = wallMs();
        buf += decoder.decode(bytes.subarray(0, n), { stream: true });
        if (first && !buf.startsWith("HTTP/1.1 200")) {
          throw new Error(`stream: ${buf.slice(0, 40)}`);
        }
        first = false;
        const end = buf.lastIndexOf("\n\n");
        if (end < 0) continue;
        const complete = buf.slice(0, end);
        buf = buf.slice(end + 2);
        for (let i = complete.indexOf('"sent":'); i >= 0; i = complete.indexOf('"sent":', i + 7)) {
          const s = complete.indexOf('"seq":', i);
          delivered++;
          if (parseInt(complete.slice(s + 6, s + 20)) >= WARM_SEQ) {
            latencies.push(now - parseFloat(complete.slice(i + 7, i + 40)));
          }
        }
      }
    })();
    return { loop };
  };
  const loops: Promise<void>[] = [];
  for (let i = 0; i < clients; i += 100) {
    const opened = await Promise.all(Array.from({ length: Math.min(100, clients - i) }, reader));
    loops.push(...opened.map((o) => o.loop));
  }
  await sleep(500); // let every subscription register
  const answer = JSON.parse((await call(appendUrl, { method: "POST" })).text);
  const { appended, failed, commit_ms: commit } = answer as Record<string, number> & {
    commit_ms?: Record<string, number>;
  };
  if (failed) throw new Error(`${failed} appends failed`);
  const expected = appended * clients;
  for (const until = Date.now() + 5_000; delivered < expected && Date.now() < until;) {
    await sleep(50);
  }
  for (const c of conns) c.close();
  await Promise.allSettled(loops);
  return { latencies, delivered, expected, commit };
}

/** Runs the part; its rows. */
export async function main(): Promise<Row[]> {
  const dir = await tempDir("bench-fanout-");
  const app = await startApp(dir.path, { pinned: false, env: { BENCH_CONTROL: "1" } });
  const bare = await spawnServer("bench/servers/bare.ts", { BARE_MODE: "sse" });
  try {
    const auth = { method: "POST", headers: key(app.proc) };
    const { token } = JSON.parse((await call(`${app.url}/v1/console/stream-token`, auth)).text);
    const q = `rate=${RATE}&seconds=${SECONDS}`;
    const rows: Row[] = [];
    for (const clients of CLIENTS) {
      const b = await runOnce(`${bare.url}/stream`, `${bare.url}/__bench/append?${q}`, clients);
      const streamUrl = `${app.url}/v1/console/events/stream?token=${token}`;
      const a = await runOnce(streamUrl, `${app.url}/__bench/append?${q}`, clients);
      const [sa, sb] = [stats(a.latencies), stats(b.latencies)];
      const f = (v: number | undefined) => v?.toFixed(2);
      const metric = `${clients} SSE clients, ${RATE} ev/s × ${SECONDS} s: append→receive p99`;
      rows.push(row(PART, metric, sa.p99, "ms", {
        base: ["bare SSE fan-out", sb.p99],
        goal: ["p99 ≤ 1.5× bare", sa.p99 <= 1.5 * sb.p99 && a.delivered === a.expected],
        note:
          `p50 ${f(sa.p50)} vs ${f(sb.p50)} ms, max ${f(sa.max)} vs ${f(sb.max)} ms; delivered ` +
          `app ${a.delivered}/${a.expected}, bare ${b.delivered}/${b.expected}; app append→commit ` +
          `p50 ${f(a.commit?.p50)} p99 ${f(a.commit?.p99)} max ${f(a.commit?.max)} ms`,
      }));
    }
    return rows;
  } finally {
    await app.stop();
    await bare.stop();
    await dir.remove();
    await printProfiles();
  }
}

if (import.meta.main) report(await main());
