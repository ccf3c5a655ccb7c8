/**
 * What held the request thread: from a V8 `.cpuprofile` (`deno run --cpu-prof`), the stretches of
 * consecutive samples in which the thread was busy (not `(idle)`) — while one runs, no request on
 * that thread is answered — and, for the stretches of at least `minMs` (20 ms), the project or
 * package function that owns each sample (the deepest frame whose file is in the project, else
 * the deepest frame of an npm package), summed: the functions that make requests wait. Sampling
 * intervals over 20 ms while busy are counted apart: the thread had no core then (other threads
 * or processes ran), which is no function's cost.
 *
 * Standalone: `deno run -A bench/cpuprofile_stretches.ts <file.cpuprofile> [minMs] [top]`
 * @module
 */

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  parent?: number;
  children?: number[];
}
interface CpuProfile {
  nodes: Node[];
  samples?: number[];
  timeDeltas?: number[];
}

/** A sampling interval above this (ms; the sampler ticks every ~1 ms) means the thread did not run. */
const GAP_MS = 20;

const label = (n: Node) => {
  const { functionName, url, lineNumber } = n.callFrame;
  const file = url.replace(/^file:\/\/.*?\/node_modules\/\.deno\//, "npm:")
    .replace(/^file:\/\/.*?\/(lib|routes|bench|app\.ts|main\.ts)/, "$1");
  return `${functionName || "(anonymous)"} ${file}:${lineNumber + 1}`;
};

/** Lines of text: stretch histogram, longest stretches, owners of the long stretches. */
export async function summarizeStretches(path: string, minMs = 20, top = 20): Promise<string[]> {
  const p: CpuProfile = JSON.parse(await Deno.readTextFile(path));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  for (const n of p.nodes) for (const c of n.children ?? []) byId.get(c)!.parent = n.id;
  const ownerCache = new Map<number, string>();
  /** The deepest project frame of a sample's stack, else the deepest package frame, else leaf. */
  const owner = (id: number): string => {
    const known = ownerCache.get(id);
    if (known) return known;
    let pkg: string | undefined;
    let found: string | undefined;
    for (let n = byId.get(id); n; n = n.parent === undefined ? undefined : byId.get(n.parent)) {
      const url = n.callFrame.url;
      if (url.startsWith("file://") && !url.includes("/node_modules/")) {
        found = label(n);
        break;
      }
      if (!pkg && url.includes("/node_modules/")) pkg = label(n);
    }
    const out = found ?? pkg ?? label(byId.get(id)!);
    ownerCache.set(id, out);
    return out;
  };
  const samples = p.samples ?? [];
  const deltas = p.timeDeltas ?? [];
  const idle = new Set(
    p.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id),
  );
  type Stretch = { ms: number; at: number; owners: Map<string, number> };
  const stretches: Stretch[] = [];
  let cur: Stretch | undefined;
  let total = 0;
  const gaps: number[] = [];
  for (let i = 0; i < samples.length; i++) {
    // A sample's time is the delta to the next one.
    const ms = (deltas[i + 1] ?? 0) / 1000;
    total += ms;
    if (idle.has(samples[i])) {
      if (cur) stretches.push(cur);
      cur = undefined;
      continue;
    }
    cur ??= { ms: 0, at: total / 1000, owners: new Map() };
    // An interval far above the sampling rate: the thread (and its sampler) had no core.
    const ran = ms > GAP_MS ? Math.min(ms, 1) : ms;
    if (ms > GAP_MS) gaps.push(ms);
    cur.ms += ran;
    const o = owner(samples[i]);
    cur.owners.set(o, (cur.owners.get(o) ?? 0) + ran);
  }
  if (cur) stretches.push(cur);
  const busy = stretches.reduce((a, s) => a + s.ms, 0);
  const long = stretches.filter((s) => s.ms >= minMs);
  const longMs = long.reduce((a, s) => a + s.ms, 0);
  const owners = new Map<string, number>();
  for (const s of long) for (const [k, v] of s.owners) owners.set(k, (owners.get(k) ?? 0) + v);
  const bins = [5, 10, 20, 50, 100, 250, Infinity];
  const hist = bins.map((b, i) => {
    const lo = i ? bins[i - 1] : 0;
    const inBin = stretches.filter((s) => s.ms >= lo && s.ms < b);
    return `  ${lo}–${b === Infinity ? "∞" : b} ms: ${inBin.length} stretches, ${
      inBin.reduce((a, s) => a + s.ms, 0).toFixed(0)
    } ms`;
  });
  const pct = (ms: number) => `${((100 * ms) / (longMs || 1)).toFixed(1).padStart(5)} %`;
  return [
    `stretches ${path}: ${(total / 1000).toFixed(1)} s profiled, busy ${
      (busy / 1000).toFixed(1)
    } s, ` +
    `${long.length} stretches ≥ ${minMs} ms hold ${(longMs / 1000).toFixed(2)} s; longest ${
      [...stretches].sort((a, b) => b.ms - a.ms).slice(0, 8).map((s) => s.ms.toFixed(0)).join(", ")
    } ms`,
    `without a core: ${gaps.length} sampling intervals over ${GAP_MS} ms while busy, ${
      (gaps.reduce((a, b) => a + b, 0) / 1000).toFixed(2)
    } s in all, longest ${Math.max(0, ...gaps).toFixed(0)} ms (other threads or processes had ` +
    "the core; not counted in the stretches)",
    "busy stretches by length:",
    ...hist,
    "the longest (start in s from the profile's start: its heaviest owners):",
    ...[...stretches].sort((a, b) => b.ms - a.ms).slice(0, 5).map((s) =>
      `  ${s.ms.toFixed(0)} ms at ${s.at.toFixed(1)} s: ${
        [...s.owners].sort((a, b) => b[1] - a[1]).slice(0, 3)
          .map(([k, v]) => `${k} ${v.toFixed(0)} ms`).join(", ")
      }`
    ),
    `owners of the stretches ≥ ${minMs} ms (share of their time):`,
    ...[...owners].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, v]) => `${pct(v)}  ${k}`),
  ];
}

/** Prints {@link summarizeStretches} for every `.cpuprofile` in `dir`. */
export async function printStretches(dir: string, minMs = 20): Promise<void> {
  for (const e of Deno.readDirSync(dir)) {
    if (e.name.endsWith(".cpuprofile")) {
      console.log((await summarizeStretches(`${dir}/${e.name}`, minMs)).join("\n"));
    }
  }
}

if (import.meta.main) {
  const [file, minMs, top] = Deno.args;
  if (!file) {
    throw new Error("usage: deno run -A bench/cpuprofile_stretches.ts <file> [minMs] [top]");
  }
  console.log((await summarizeStretches(file, Number(minMs ?? 20), Number(top ?? 20))).join("\n"));
}
