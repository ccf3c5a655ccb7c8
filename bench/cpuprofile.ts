/**
 * Summarises a V8 `.cpuprofile` (as written by `deno run --cpu-prof`): self time per function,
 * and time per source file, heaviest first. Used by the parts that take `BENCH_CPU_PROF`
 * ({@link printProfiles}).
 *
 * Standalone: `deno run -A bench/cpuprofile.ts <file.cpuprofile> [top]`
 * @module
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

const short = (url: string) =>
  url.replace(/^file:\/\/.*?\/node_modules\/\.deno\//, "npm:").replace(/^file:\/\/.*?\/main\//, "")
    .replace(/^ext:/, "ext:");

/** Lines of text: top functions by self time and top files, with shares of all samples. */
export async function summarizeProfile(path: string, top = 25): Promise<string[]> {
  const p: CpuProfile = JSON.parse(await Deno.readTextFile(path));
  const self = new Map<number, number>();
  const samples = p.samples ?? [];
  const deltas = p.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    self.set(samples[i], (self.get(samples[i]) ?? 0) + (deltas[i] ?? 0));
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0) || 1;
  const byFn = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const n of p.nodes) {
    const t = self.get(n.id) ?? 0;
    if (!t) continue;
    const { functionName, url, lineNumber } = n.callFrame;
    const file = url ? short(url) : "(native)";
    const fn = `${functionName || "(anonymous)"} ${file}${url ? `:${lineNumber + 1}` : ""}`;
    byFn.set(fn, (byFn.get(fn) ?? 0) + t);
    const group = /^npm:([^/]+)/.exec(file)?.[1] ?? file;
    byFile.set(group, (byFile.get(group) ?? 0) + t);
  }
  const pct = (t: number) => `${((100 * t) / total).toFixed(1).padStart(5)} %`;
  const topOf = (m: Map<string, number>) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, t]) => `${pct(t)}  ${k}`);
  return [
    `profile ${path}: ${(total / 1e6).toFixed(2)} s sampled`,
    "self time by function:",
    ...topOf(byFn),
    "self time by file / package:",
    ...topOf(byFile),
  ];
}

if (import.meta.main) {
  const [file, top] = Deno.args;
  if (!file) throw new Error("usage: deno run -A bench/cpuprofile.ts <file.cpuprofile> [top]");
  console.log((await summarizeProfile(file, Number(top ?? 25))).join("\n"));
}

/** Prints the summary of every `.cpuprofile` in `dir` (the parts' `BENCH_CPU_PROF` folder). */
export async function printProfiles(dir: string): Promise<void> {
  for (const e of Deno.readDirSync(dir)) {
    if (e.name.endsWith(".cpuprofile")) {
      console.log((await summarizeProfile(`${dir}/${e.name}`)).join("\n"));
    }
  }
}
