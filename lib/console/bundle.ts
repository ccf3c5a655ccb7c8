/**
 * Builds the console's browser bundle (docs/architecture.md, "Console") with `deno bundle --platform browser` into
 * `static/build/client-<hash>.js`, and tells whether the bundle is missing or stale.
 *
 * The project compiles JSX with `precompile`, which emits string templates that only
 * `preact-render-to-string` understands; the browser needs ordinary `jsx()` calls. So the bundle
 * is built with a generated config beside a copy of `deno.lock`: the project's import map and
 * locked versions, JSX `react-jsx` with `jsxImportSource: preact`.
 *
 * `static/build/manifest.json` records the bundle's file name, the local source files in its
 * module graph (from `deno info`) and a hash over their contents: the bundle is stale when any
 * of them changed.
 *
 * @example
 * const { built, manifest } = await ensureBundle(); // builds only when missing or stale
 * @module
 */
import { sha256Hex as sha256 } from "./hash.ts";

const ROOT = new URL("../../", import.meta.url);
/** Output directory (git-ignored). */
export const BUILD_DIR = new URL("static/build/", ROOT);
const MANIFEST = new URL("manifest.json", BUILD_DIR);
const ENTRY = new URL("client.tsx", ROOT);

/** What a build produced. */
export interface BundleManifest {
  /** File name under `static/build/`, e.g. `client-3f2a….js`. */
  script: string;
  /** Local source files of the bundle (relative to the project root), plus deno.json/lock. */
  inputs: string[];
  /** SHA-256 over the inputs' paths and contents. */
  inputs_hash: string;
  built_at: string;
}

/** The manifest of the last build, or `null` when there is none (or it is unreadable). */
export async function readManifest(): Promise<BundleManifest | null> {
  try {
    const m = JSON.parse(await Deno.readTextFile(MANIFEST)) as BundleManifest;
    return typeof m.script === "string" && Array.isArray(m.inputs) ? m : null;
  } catch {
    return null;
  }
}

async function hashInputs(inputs: string[]): Promise<string | null> {
  const parts: string[] = [];
  for (const rel of [...inputs].sort()) {
    try {
      parts.push(rel, await sha256(await Deno.readFile(new URL(rel, ROOT))));
    } catch {
      return null;
    }
  }
  return await sha256(parts.join("\0"));
}

/** Why the bundle must be (re)built, or `null` when it is up to date. */
export async function staleReason(): Promise<string | null> {
  const m = await readManifest();
  if (!m) return "no bundle has been built";
  try {
    await Deno.stat(new URL(m.script, BUILD_DIR));
  } catch {
    return `${m.script} is missing`;
  }
  const now = await hashInputs(m.inputs);
  if (now === null) return "a source file of the bundle was removed";
  return now === m.inputs_hash ? null : "its sources changed";
}

async function run(args: string[]): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), { args, stdout: "piped", stderr: "piped" })
    .output();
  const dec = new TextDecoder();
  if (!out.success) {
    throw new Error(`deno ${args[0]} failed:\n${dec.decode(out.stderr)}${dec.decode(out.stdout)}`);
  }
  return dec.decode(out.stdout);
}

/** Builds the bundle now and writes the manifest; returns it. */
export async function buildBundle(): Promise<BundleManifest> {
  const tmp = await Deno.makeTempDir({ prefix: "console-bundle-" });
  try {
    const project = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
    const config = `${tmp}/deno.json`;
    await Deno.writeTextFile(
      config,
      JSON.stringify({
        imports: project.imports,
        compilerOptions: { jsx: "react-jsx", jsxImportSource: "preact", strict: true },
        nodeModulesDir: "none",
      }),
    );
    try {
      await Deno.copyFile(new URL("deno.lock", ROOT), `${tmp}/deno.lock`);
    } catch { /* no lock file: versions resolve from the import map */ }

    const graph = JSON.parse(await run(["info", "--json", "--config", config, ENTRY.href])) as {
      modules: { specifier: string }[];
    };
    const local = graph.modules.map((m) => m.specifier)
      .filter((s) => s.startsWith(ROOT.href))
      .map((s) => decodeURIComponent(s.slice(ROOT.href.length)));
    const inputs = [...new Set([...local, "deno.json", "deno.lock"])]
      .filter((rel) => Deno.statSync(new URL(rel, ROOT)).isFile).sort();
    const inputsHash = await hashInputs(inputs);
    if (!inputsHash) throw new Error("a source file vanished during the build");

    const out = `${tmp}/client.js`;
    await run([
      "bundle",
      "--config",
      config,
      "--platform",
      "browser",
      "--format",
      "esm",
      "--minify",
      "--output",
      out,
      ENTRY.href,
    ]);
    const code = await Deno.readFile(out);
    const script = `client-${(await sha256(code)).slice(0, 16)}.js`;
    await Deno.mkdir(BUILD_DIR, { recursive: true });
    await atomicWrite(new URL(script, BUILD_DIR), code);
    const manifest: BundleManifest = {
      script,
      inputs,
      inputs_hash: inputsHash,
      built_at: new Date().toISOString(),
    };
    await atomicWrite(MANIFEST, new TextEncoder().encode(JSON.stringify(manifest, null, 2)));
    for await (const e of Deno.readDir(BUILD_DIR)) {
      if (/^client-[0-9a-f]+\.js$/.test(e.name) && e.name !== script) {
        await Deno.remove(new URL(e.name, BUILD_DIR)).catch(() => {});
      }
    }
    return manifest;
  } finally {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
}

async function atomicWrite(target: URL, data: Uint8Array): Promise<void> {
  const part = new URL(`${target.pathname.split("/").pop()}.${crypto.randomUUID()}.part`, target);
  await Deno.writeFile(part, data);
  await Deno.rename(part, target);
}

/** Builds when the bundle is missing or stale. */
export async function ensureBundle(): Promise<
  { built: boolean; reason: string | null; manifest: BundleManifest }
> {
  const reason = await staleReason();
  if (reason === null) {
    const manifest = await readManifest();
    if (manifest) return { built: false, reason, manifest };
  }
  return { built: true, reason, manifest: await buildBundle() };
}
