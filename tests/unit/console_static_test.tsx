/**
 * `/console` and `/static/...` on the real app (docs/architecture.md, "Console"): the page and its files are open
 * (also when the service fails closed), carry the CSP and explicit content types, the hashed
 * bundle is immutable, other files revalidate by ETag, and no request escapes `static/`.
 * The bundle is built here when missing or stale.
 */
import assert from "node:assert/strict";
import { ensureBundle, staleReason } from "../../lib/console/bundle.ts";
import { CONSOLE_CSP } from "../../routes/console_page.tsx";
import { startServer, storedEvents } from "../support/app.ts";

Deno.test("bundle: built when missing or stale, then up to date", async () => {
  const { manifest } = await ensureBundle();
  assert.equal(await staleReason(), null);
  assert.match(manifest.script, /^client-[0-9a-f]{16}\.js$/);
  assert.ok(manifest.inputs.includes("client.tsx"));
  assert.ok(manifest.inputs.includes("islands/EventStream.tsx"));
  const code = await Deno.readTextFile(
    new URL(`../../static/build/${manifest.script}`, import.meta.url),
  );
  assert.doesNotMatch(code, /\$\$_tpl_/, "no precompiled JSX templates in the browser bundle");
});

Deno.test("page and static files: open, typed, cached, CSP, nothing logged", async () => {
  const { manifest } = await ensureBundle();
  const s = await startServer({}); // fail-closed: no key, no issuer
  try {
    const page = await fetch(`${s.url}/console`);
    const html = await page.text();
    assert.equal(page.status, 200);
    assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
    assert.equal(page.headers.get("content-security-policy"), CONSOLE_CSP);
    assert.equal(page.headers.get("x-content-type-options"), "nosniff");
    assert.equal(page.headers.get("referrer-policy"), "no-referrer");
    assert.ok(html.includes(`src="/static/build/${manifest.script}"`));

    const js = await fetch(`${s.url}/static/build/${manifest.script}`);
    await js.arrayBuffer();
    assert.equal(js.status, 200);
    assert.equal(js.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.equal(js.headers.get("cache-control"), "public, max-age=31536000, immutable");

    const css = await fetch(`${s.url}/static/theme.css`);
    assert.match(await css.text(), /prefers-color-scheme: dark/);
    assert.equal(css.headers.get("content-type"), "text/css; charset=utf-8");
    assert.equal(css.headers.get("cache-control"), "no-cache");
    assert.equal(css.headers.get("content-security-policy"), CONSOLE_CSP);
    const etag = css.headers.get("etag")!;
    // Weak when the answer was compressed (fetch accepts gzip and br): the bytes differ.
    assert.match(etag, /^(W\/)?"[0-9a-f]{32}"$/);
    const again = await fetch(`${s.url}/static/theme.css`, { headers: { "if-none-match": etag } });
    await again.body?.cancel();
    assert.equal(again.status, 304);

    const icon = await fetch(`${s.url}/static/favicon.svg`);
    await icon.body?.cancel();
    assert.equal(icon.headers.get("content-type"), "image/svg+xml");

    for (
      const path of [
        "/static/build/manifest.json",
        "/static/build/client-0000000000000000.js",
        "/static/..%2Fdeno.json",
        "/static/.gitignore",
        "/static/build/..%2F..%2Fdeno.json",
        "/static/nope.css",
        "/static/build",
      ]
    ) {
      const r = await fetch(`${s.url}${path}`);
      await r.body?.cancel();
      assert.equal(r.status, 404, path);
    }
    assert.deepEqual(await storedEvents(s.kv), []);
  } finally {
    await s.close();
  }
});
