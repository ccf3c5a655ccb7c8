/**
 * Arrows point down (docs/architecture.md, "Layers"): the composition (`main.ts`, `app.ts`,
 * `islands.ts`, `client.tsx`) and `routes/` sit on top; `lib/http/` is the HTTP edge; the rest of
 * `lib/` is the domain and knows no HTTP. Checked on the import statements of every module.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

/** Every `.ts`/`.tsx` file below `dir` (relative to the repository), recursively. */
async function modules(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(new URL(dir, ROOT))) {
    const rel = `${dir}${e.name}`;
    if (e.isDirectory) out.push(...await modules(`${rel}/`));
    else if (/\.tsx?$/.test(e.name)) out.push(rel);
  }
  return out;
}

/** The repository-relative paths a module imports (relative specifiers only). */
async function importsOf(rel: string): Promise<string[]> {
  const text = await Deno.readTextFile(new URL(rel, ROOT));
  const out: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)[^;]*?from\s+"(\.{1,2}\/[^"]+)"/gms)) {
    out.push(new URL(m[1], new URL(rel, ROOT)).href.slice(ROOT.href.length));
  }
  return out;
}

Deno.test("layers: nothing under lib/ outside lib/http/ imports lib/http/", async () => {
  const offenders: string[] = [];
  for (const rel of await modules("lib/")) {
    if (rel.startsWith("lib/http/")) continue;
    for (const target of await importsOf(rel)) {
      if (target.startsWith("lib/http/")) offenders.push(`${rel} → ${target}`);
    }
  }
  assert.deepEqual(offenders, []);
});

Deno.test("layers: lib/ imports nothing above it (routes, islands, components, the composition)", async () => {
  const offenders: string[] = [];
  for (const rel of await modules("lib/")) {
    for (const target of await importsOf(rel)) {
      if (!target.startsWith("lib/")) offenders.push(`${rel} → ${target}`);
    }
  }
  assert.deepEqual(offenders, []);
});

/**
 * Every import cycle among `modules` (each as `a → b → … → a`), found by a depth-first search
 * over the graph `edges`; type-only imports count too (a cycle of types is still two modules that
 * cannot be read one without the other).
 */
function importCycles(edges: Map<string, string[]>): string[] {
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (m: string) => {
    state.set(m, "open");
    path.push(m);
    for (const t of edges.get(m) ?? []) {
      if (!edges.has(t)) continue;
      if (state.get(t) === "open") cycles.push([...path.slice(path.indexOf(t)), t].join(" → "));
      else if (!state.has(t)) visit(t);
    }
    path.pop();
    state.set(m, "done");
  };
  for (const m of [...edges.keys()].sort()) if (!state.has(m)) visit(m);
  return cycles;
}

Deno.test('layers: no import cycle under lib/ (docs/architecture.md, "Layers")', async () => {
  const edges = new Map<string, string[]>();
  for (const rel of await modules("lib/")) edges.set(rel, await importsOf(rel));
  assert.deepEqual(importCycles(edges), []);
});

Deno.test("layers: the cycle check finds a cycle (a check that cannot fail proves nothing)", () => {
  const edges = new Map([
    ["lib/a.ts", ["lib/b.ts"]],
    ["lib/b.ts", ["lib/c.ts"]],
    ["lib/c.ts", ["lib/a.ts"]],
    ["lib/d.ts", ["lib/a.ts"]],
  ]);
  assert.deepEqual(importCycles(edges), ["lib/a.ts → lib/b.ts → lib/c.ts → lib/a.ts"]);
});
