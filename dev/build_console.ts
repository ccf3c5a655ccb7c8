/**
 * `deno task build`: bundles the console's islands for the browser into `static/build/`
 * (docs/architecture.md, "Console"). With `--if-stale` (used by `start`, `dev`, `demo` and `test`) it builds only when
 * the bundle is missing or one of its sources changed, and a failed build only warns: the
 * service still starts, and `/console` says that its script is missing.
 *
 * Usage: deno run --allow-read --allow-write --allow-run dev/build_console.ts [--if-stale]
 * @module
 */
import { buildBundle, ensureBundle } from "../lib/console/bundle.ts";

if (Deno.args.includes("--if-stale")) {
  try {
    const { built, reason, manifest } = await ensureBundle();
    console.log(
      built
        ? `console bundle built (${reason}): static/build/${manifest.script}`
        : `console bundle up to date: static/build/${manifest.script}`,
    );
  } catch (err) {
    console.error(`WARNING: the console bundle could not be built: ${(err as Error).message}`);
  }
} else {
  const manifest = await buildBundle();
  console.log(`console bundle built: static/build/${manifest.script}`);
}
