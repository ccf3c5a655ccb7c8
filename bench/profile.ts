/**
 * Summaries of `.cpuprofile` files (`BENCH_CPU_PROF=<dir>`): self time by function and package,
 * and the busy stretches that held the thread (docs/mixed-load.md). Standalone:
 * `deno run -A bench/profile.ts <file.cpuprofile> [stretches]`.
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

const file = (url: string) =>
  url.replace(/^file:\/\/.*?\/node_modules\/\.deno\//, "npm:").replace(
    /^file:\/\/.*?\/(lib|routes|bench|app\.ts|main\.ts)/,
    "$1",
  );
const label = (n: Node) =>
  `${n.callFrame.functionName || "(anonymous)"} ${file(n.callFrame.url)}:${
    n.callFrame.lineNumber + 1
  }`;
const pct = (t: number, total: number) => `${((100 * t) / (total || 1)).toFixed(1).padStart(5)} %`;
const topOf = (m: Map<string, number>, total: number, top: number) =>
  [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, t]) => `${pct(t, total)}  ${k}`);
const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);

/** Lines of text: top functions by self time and top files/packages, shares of all samples. */
export function summarizeProfile(path: string, p: CpuProfile, top = 25): string[] {
  const self = new Map<number, number>();
  const samples = p.samples ?? [], deltas = p.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    self.set(samples[i], (self.get(samples[i]) ?? 0) + (deltas[i] ?? 0));
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0) || 1;
  const byFn = new Map<string, number>(), byFile = new Map<string, number>();
  for (const n of p.nodes) {
    const t = self.get(n.id) ?? 0;
    if (!t) continue;
    const f = n.callFrame.url ? file(n.callFrame.url) : "(native)";
    add(byFn, n.callFrame.url ? label(n) : `${n.callFrame.functionName} (native)`, t);
    add(byFile, /^npm:([^/]+)/.exec(f)?.[1] ?? f, t);
  }
  return [
    `profile ${path}: ${(total / 1e6).toFixed(2)} s sampled`,
    "self time by function:",
    ...topOf(byFn, total, top),
    "self time by file / package:",
    ...topOf(byFile, total, top),
  ];
}

/** Lines of text: busy stretches by length, the longest, owners of those ≥ `minMs`. */
export function summarizeStretches(path: string, p: CpuProfile, minMs = 20, top = 20): string[] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  for (const n of p.nodes) for (const c of n.children ?? []) byId.get(c)!.parent = n.id;
  const owners = new Map<number, string>();
  /** The deepest project frame of a sample's stack, else the deepest package frame, else leaf. */
  const owner = (id: number): string => {
    if (owners.has(id)) return owners.get(id)!;
    let pkg: string | undefined, found: string | undefined;
    for (
      let n = byId.get(id);
      n && !found;
      n = n.parent === undefined ? undefined : byId.get(n.parent)
    ) {
      const url = n.callFrame.url;
      if (url.startsWith("file://") && !url.includes("/node_modules/")) found = label(n);
      else if (!pkg && url.includes("/node_modules/")) pkg = label(n);
    }
    owners.set(id, found ?? pkg ?? label(byId.get(id)!));
    return owners.get(id)!;
  };
  const samples = p.samples ?? [], deltas = p.timeDeltas ?? [];
  const idle = new Set(
    p.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id),
  );
  type Stretch = { ms: number; at: number; owners: Map<string, number> };
  const stretches: Stretch[] = [];
  let cur: Stretch | undefined;
  let total = 0;
  const gaps: number[] = [];
  for (let i = 0; i < samples.length; i++) {
    const ms = (deltas[i + 1] ?? 0) / 1000; // a sample's time is the delta to the next one
    total += ms;
    if (idle.has(samples[i])) {
      if (cur) stretches.push(cur);
      cur = undefined;
      continue;
    }
    cur ??= { ms: 0, at: total / 1000, owners: new Map() };
    const ran = ms > GAP_MS ? Math.min(ms, 1) : ms;
    if (ms > GAP_MS) gaps.push(ms);
    cur.ms += ran;
    add(cur.owners, owner(samples[i]), ran);
  }
  if (cur) stretches.push(cur);
  const sumMs = (xs: { ms: number }[]) => xs.reduce((a, s) => a + s.ms, 0);
  const s1 = (ms: number, digits = 1) => `${(ms / 1000).toFixed(digits)} s`;
  const long = stretches.filter((s) => s.ms >= minMs);
  const longMs = sumMs(long);
  const all = new Map<string, number>();
  for (const s of long) for (const [k, v] of s.owners) add(all, k, v);
  const bins = [5, 10, 20, 50, 100, 250, Infinity];
  const sorted = [...stretches].sort((a, b) => b.ms - a.ms);
  const longest = sorted.slice(0, 8).map((s) => s.ms.toFixed(0)).join(", ");
  const heaviest = (m: Map<string, number>) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([k, v]) => `${k} ${v.toFixed(0)} ms`);
  return [
    `stretches ${path}: ${s1(total)} profiled, busy ${s1(sumMs(stretches))}, ${long.length} ` +
    `stretches ≥ ${minMs} ms hold ${s1(longMs, 2)}; longest ${longest} ms`,
    `without a core: ${gaps.length} sampling intervals over ${GAP_MS} ms while busy, ` +
    `${s1(gaps.reduce((a, b) => a + b, 0), 2)} in all (other threads or processes had the core; ` +
    "not counted in the stretches)",
    "busy stretches by length:",
    ...bins.map((b, i) => {
      const lo = i ? bins[i - 1] : 0;
      const inBin = stretches.filter((s) => s.ms >= lo && s.ms < b);
      return `  ${lo}–${b} ms: ${inBin.length} stretches, ${sumMs(inBin).toFixed(0)} ms`;
    }),
    "the longest (start in s from the profile's start: its heaviest owners):",
    ...sorted.slice(0, 5).map((s) =>
      `  ${s.ms.toFixed(0)} ms at ${s.at.toFixed(1)} s: ${heaviest(s.owners).join(", ")}`
    ),
    `owners of the stretches ≥ ${minMs} ms (share of their time):`,
    ...topOf(all, longMs, top),
  ];
}

/** With `BENCH_CPU_PROF=<dir>`: prints the summary (and the stretches) of each profile there. */
export async function printProfiles(stretches = false): Promise<void> {
  const dir = Deno.env.get("BENCH_CPU_PROF");
  if (!dir) return;
  for (const e of Deno.readDirSync(dir)) {
    if (!e.name.endsWith(".cpuprofile")) continue;
    const path = `${dir}/${e.name}`;
    const p = JSON.parse(await Deno.readTextFile(path)) as CpuProfile;
    console.log(summarizeProfile(path, p).join("\n"));
    if (stretches) console.log(summarizeStretches(path, p).join("\n"));
  }
}

if (import.meta.main) {
  const [path, stretches] = Deno.args;
  if (!path) throw new Error("usage: deno run -A bench/profile.ts <file.cpuprofile> [stretches]");
  const p = JSON.parse(await Deno.readTextFile(path)) as CpuProfile;
  console.log((stretches ? summarizeStretches(path, p) : summarizeProfile(path, p)).join("\n"));
}
