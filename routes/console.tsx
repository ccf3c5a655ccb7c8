/**
 * `/console` and its static files (docs/architecture.md, "Console").
 *
 * - `GET /console` (open): the server-rendered page with {@link CONSOLE_CSP}; it holds no data.
 * - `GET /static/{file}` (open): stylesheet and icon, ETag-revalidated.
 * - `GET /static/build/{file}` (open): the hashed client bundle, cached as immutable.
 *
 * The bundle is built by `deno task build` (and by `start`, `dev` and `demo` when missing or
 * stale); the page names the file the last build's manifest records.
 *
 * The page's renderer (`./console_page.tsx`, with the islands, components and
 * preact-render-to-string) is imported, and the config fields' metadata derived, at the first
 * `GET /console`, not when the service starts.
 * @module
 */
import type { RouteContext } from "../lib/http/route_context.ts";
import { readManifest } from "../lib/console/bundle.ts";
import { fieldMeta } from "../lib/console/field_meta.ts";
import type { FieldMeta } from "../lib/console/types.ts";
import { CONSOLE_CSP } from "./console_csp.ts";
import {
  CONTENT_TYPES,
  HASHED_BUNDLE,
  serveStatic,
  STATIC_NAME,
} from "../lib/http/static_files.ts";
import type { HeaderSpec, MediaSpec } from "../lib/http/route_table.ts";
import { EVENT_KINDS } from "../lib/store/events.ts";

let page: Promise<typeof import("./console_page.tsx")> | undefined;

const ETAG: HeaderSpec = { description: "strong validator of the file's content", required: true };
const IF_NONE_MATCH: HeaderSpec = {
  description: "ETags the client holds (or *): 304 when one is the file's",
};
/** The media types a static file is served as (by its extension). */
const staticMedia = (): MediaSpec[] =>
  [...new Set(Object.values(CONTENT_TYPES).map((t) => t.split(";")[0]))]
    .map((contentType) => ({ contentType, schema: { type: "string" } }));

/** Registers the console page and the static files it needs. */
export function registerConsole(ctx: RouteContext): void {
  let fields: FieldMeta[] | undefined;
  const csp = { "content-security-policy": CONSOLE_CSP };

  ctx.routes.add({
    method: "get",
    path: "/console",
    access: "open",
    summary: "The operator console (HTML page; the key is entered in the page)",
    tags: ["console"],
    responses: {
      200: {
        description: "the page",
        alternatives: [{ contentType: "text/html", schema: { type: "string" } }],
      },
    },
  }, async (c) => {
    const manifest = await readManifest();
    const { renderConsolePage } = await (page ??= import("./console_page.tsx"));
    const html = renderConsolePage({
      script: manifest ? `/static/build/${manifest.script}` : null,
      stylesheets: [
        "/static/theme.css",
        "/static/styles.css",
        "/static/panels.css",
        "/static/touch.css",
        "/static/attention.css",
        "/static/intraday.css",
        "/static/settlement.css",
        "/static/narrow.css",
      ],
      fields: fields ??= fieldMeta(),
      kinds: [...EVENT_KINDS],
    });
    return c.body(html, 200, {
      ...csp,
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-cache",
    });
  });

  ctx.routes.add({
    method: "get",
    path: "/static/{file}",
    access: "open",
    summary: "Console stylesheet and icon",
    tags: ["console"],
    params: {
      file: {
        description: "a file name of static/ with a known extension",
        pattern: STATIC_NAME,
        refused: 404,
      },
    },
    requestHeaders: { "If-None-Match": IF_NONE_MATCH },
    responses: {
      200: {
        description: "the file",
        alternatives: staticMedia(),
        headers: { ETag: ETAG, "Cache-Control": { description: "no-cache", required: true } },
      },
      304: {
        description: "If-None-Match named the file's ETag: unchanged",
        empty: true,
        headers: { ETag: ETAG },
      },
      404: { description: "no such file" },
    },
  }, (c) => serveStatic("", c.req.param("file") ?? "", c.req.header("if-none-match"), csp));

  ctx.routes.add({
    method: "get",
    path: "/static/build/{file}",
    access: "open",
    summary: "Console client bundle (content-hashed name, immutable)",
    tags: ["console"],
    params: {
      file: {
        description: "the bundle's content-hashed name, as the page names it",
        pattern: HASHED_BUNDLE,
        refused: 404,
      },
    },
    requestHeaders: { "If-None-Match": IF_NONE_MATCH },
    responses: {
      200: {
        description: "the bundle",
        alternatives: [{ contentType: "text/javascript", schema: { type: "string" } }],
        headers: {
          ETag: ETAG,
          "Cache-Control": { description: "public, max-age=31536000, immutable", required: true },
        },
      },
      304: {
        description: "If-None-Match named the bundle's ETag: unchanged",
        empty: true,
        headers: { ETag: ETAG },
      },
      404: { description: "no such file" },
    },
  }, (c) => serveStatic("build/", c.req.param("file") ?? "", c.req.header("if-none-match"), csp));
}
