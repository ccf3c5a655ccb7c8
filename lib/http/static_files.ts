/**
 * Serves the console's static files (docs/architecture.md, "Console"): `static/<file>` and the built bundle
 * `static/build/client-<hash>.js`. Only plain file names with a known extension are served, so
 * no request can leave the directory. Content types are explicit (`nosniff` is set globally).
 * The hashed bundle is cached for a year as `immutable`; other files revalidate with a strong
 * ETag (`no-cache` + `If-None-Match` → 304).
 *
 * Why not Hono's `serveStatic` for Deno (`hono/deno`, deprecated there in favour of
 * `@hono/deno`): it opens and streams the file on every request with a content type from its
 * own table, but sends no ETag and never 304, and has no allow-list of names and types; adding
 * `hono/etag` would hash every answer's body again per request. Ours keeps each file and its hash
 * in memory until the file's mtime or size changes.
 * @module
 */
import { problem } from "./errors.ts";
import { sha256Hex } from "../console/hash.ts";

const STATIC_DIR = new URL("../../static/", import.meta.url);
/** A servable file name (with a known extension besides): nothing can leave the directory. */
export const STATIC_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** The name of a built bundle: `client-<16 hex digits of its hash>.js`. */
export const HASHED_BUNDLE = /^client-[0-9a-f]{16}\.js$/;

/** Content type per extension; anything else is not served. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
  woff2: "font/woff2",
  txt: "text/plain; charset=utf-8",
};

interface Cached {
  mtime: number;
  size: number;
  body: Uint8Array<ArrayBuffer>;
  etag: string;
}
const cache = new Map<string, Cached>();

async function load(url: URL): Promise<Cached | null> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(url);
  } catch {
    return null;
  }
  if (!info.isFile) return null;
  const mtime = info.mtime?.getTime() ?? 0;
  const hit = cache.get(url.href);
  if (hit && hit.mtime === mtime && hit.size === info.size) return hit;
  const body = await Deno.readFile(url) as Uint8Array<ArrayBuffer>;
  const entry = { mtime, size: info.size, body, etag: `"${(await sha256Hex(body)).slice(0, 32)}"` };
  cache.set(url.href, entry);
  return entry;
}

/**
 * Answers `GET /static/<dir><name>`.
 * @param dir `""` for `static/`, `"build/"` for the bundle directory
 * @param headers extra headers for every answer (e.g. the CSP)
 */
export async function serveStatic(
  dir: "" | "build/",
  name: string,
  ifNoneMatch: string | undefined,
  headers: Record<string, string> = {},
): Promise<Response> {
  const ext = name.slice(name.lastIndexOf(".") + 1).toLowerCase();
  const type = CONTENT_TYPES[ext];
  const allowed = STATIC_NAME.test(name) && !name.includes("..") && type &&
    (dir === "" || HASHED_BUNDLE.test(name));
  const file = allowed ? await load(new URL(dir + name, STATIC_DIR)) : null;
  if (!file) return problem(404, `No static file ${dir}${name}.`);
  const common = {
    ...headers,
    etag: file.etag,
    "cache-control": dir === "build/" ? "public, max-age=31536000, immutable" : "no-cache",
  };
  const tags = (ifNoneMatch ?? "").split(",").map((t) => t.trim().replace(/^W\//, ""));
  if (tags.includes(file.etag) || tags.includes("*")) {
    return new Response(null, { status: 304, headers: common });
  }
  return new Response(file.body, {
    headers: { ...common, "content-type": type },
  });
}
