/**
 * What importing the service loads (docs/startup.md): the packages that only some paths need are
 * imported at their first use, so they must not be reachable from `app.ts` or `main.ts` through
 * static imports. Checked on the import statements of the modules reachable from them (type-only
 * imports and `import()` left out), as `deno info` would see them.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

/** Bare specifiers that importing the service must not load, and why. */
const LAZY: Record<string, string> = {
  "date-holidays":
    "loaded at the first forecast or aggregation step (lib/pipeline/shape_modules.ts)",
  "ssh2-sftp-client": "loaded at the first sFTP connection (lib/adapters/sftp.ts)",
  "jose": "loaded at the first OIDC token (lib/auth/oidc.ts)",
  "fast-xml-parser": "loaded at the first schedule or TSO answer (lib/fahrplan/xml_modules.ts)",
  "libxml2-wasm":
    "loaded with the Fahrplan XML modules, at the first CIM document checked (lib/fahrplan/xml_modules.ts)",
  "jsonc-parser": "loaded at the first body that is not JSON (lib/http/validation.ts)",
  "preact-render-to-string": "loaded at the first GET /console (routes/console.tsx)",
  "prom-client": "its index loads process metrics and the push gateway; use prom-client/lib/*",
};

/** Static, value-carrying imports and re-exports of a module's text. */
function staticImports(text: string): string[] {
  const out: string[] = [];
  const re = /^\s*(?:import|export)\s+(?!type\s)(?:[^;"']*?\s+from\s+)?["']([^"']+)["']/gm;
  for (const m of text.matchAll(re)) out.push(m[1]);
  return out;
}

/** Every bare specifier reachable from `entry` by static imports, with the module importing it. */
async function reachablePackages(entry: string): Promise<Map<string, string>> {
  const seen = new Set<string>();
  const packages = new Map<string, string>();
  const queue = [new URL(entry, ROOT).href];
  while (queue.length) {
    const href = queue.pop()!;
    if (seen.has(href)) continue;
    seen.add(href);
    for (const spec of staticImports(await Deno.readTextFile(new URL(href)))) {
      if (spec.startsWith(".")) queue.push(new URL(spec, href).href);
      else if (!packages.has(spec)) packages.set(spec, href.slice(ROOT.href.length));
    }
  }
  return packages;
}

for (const entry of ["app.ts", "main.ts"]) {
  Deno.test(`startup: importing ${entry} loads no package that only some paths need`, async () => {
    const packages = await reachablePackages(entry);
    assert.ok(packages.has("zod") && packages.has("hono"), "the walk follows the imports");
    const offenders = [...packages].filter(([spec]) => spec in LAZY)
      .map(([spec, by]) => `${by} imports ${spec}: ${LAZY[spec]}`);
    assert.deepEqual(offenders, []);
  });
}
