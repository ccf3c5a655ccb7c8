/**
 * The islands mechanism and the page (docs/architecture.md, "Console"), rendered with preact-render-to-string:
 * markers name the island and carry an id into one JSON data block; nothing in props can close
 * that block; the page has no inline script and no style attribute; each island renders its
 * "no key yet" state on the server.
 */
import assert from "node:assert/strict";
import { renderToString } from "preact-render-to-string";
import { Island, IslandCollector, IslandData, serializeProps } from "../../lib/console/island.tsx";
import { CONSOLE_CSP, renderConsolePage } from "../../routes/console_page.tsx";
import { fieldMeta } from "../../lib/console/field_meta.ts";
import { ISLANDS } from "../../islands.ts";
import { apiKey, authProblem } from "../../lib/console/session.ts";
import { KeyGate } from "../../islands/KeyGate.tsx";
import { OrchestratorPanel } from "../../islands/OrchestratorPanel.tsx";
import { EventStream } from "../../islands/EventStream.tsx";
import { ConfigEditor } from "../../islands/ConfigEditor.tsx";
import { DeliveryDays } from "../../islands/DeliveryDays.tsx";

const HOSTILE = `</script><script>alert(1)</script><!-- \u2028 & "quote"`;

function page(kinds = ["api_call"]) {
  return renderConsolePage({
    script: "/static/build/client-0123456789abcdef.js",
    stylesheets: ["/static/styles.css"],
    fields: fieldMeta(),
    kinds,
  });
}

function propsBlock(html: string): unknown {
  const m = /<script type="application\/json" id="island-props">([\s\S]*?)<\/script>/.exec(html);
  assert.ok(m, "props data block present");
  return JSON.parse(m[1]);
}

Deno.test("serializeProps: nothing can close the data block; JSON.parse reads it back", () => {
  const value = { text: HOSTILE, nested: [HOSTILE] };
  const s = serializeProps(value);
  assert.doesNotMatch(s, /[<>&\u2028\u2029]/);
  assert.deepEqual(JSON.parse(s), value);
});

Deno.test("Island: marker with name and id, props collected in order, hydration data intact", () => {
  const c = new IslandCollector();
  const html = renderToString(
    <div>
      <Island collector={c} name="KeyGate" component={ISLANDS.KeyGate} props={{}} />
      <Island
        collector={c}
        name="EventStream"
        component={ISLANDS.EventStream}
        props={{ kinds: [HOSTILE] }}
      />
      <IslandData collector={c} />
    </div>,
  );
  assert.match(html, /<div class="island" data-island="KeyGate" data-island-id="0">/);
  assert.match(html, /<div class="island" data-island="EventStream" data-island-id="1">/);
  assert.deepEqual(propsBlock(html), [{}, { kinds: [HOSTILE] }]);
  // The hostile kind appears once as escaped option text, never as markup.
  assert.equal(html.split("</script>").length - 1, 1, "only the data block closes a script");
  assert.ok(!html.includes("<script>alert(1)"));
});

Deno.test("page: islands, one module script, CSP-clean markup", () => {
  const html = page([HOSTILE]);
  assert.ok(html.startsWith('<!doctype html><html lang="en">'));
  for (const name of Object.keys(ISLANDS)) assert.match(html, new RegExp(`data-island="${name}"`));
  const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
  assert.deepEqual(scripts, [
    ' type="module" src="/static/build/client-0123456789abcdef.js"',
    ' type="application/json" id="island-props"',
  ]);
  assert.doesNotMatch(html, /\sstyle=/, "no style attribute");
  assert.doesNotMatch(html, /<style/, "no style element");
  assert.doesNotMatch(html, /\son[a-z]+=/i, "no inline event handler");
  assert.ok(!html.includes("<script>alert(1)"));
  const props = propsBlock(html) as unknown[];
  // KeyGate, OrchestratorPanel, Attention, DeliveryDays, EventStream, ConfigEditor.
  assert.deepEqual((props[4] as { kinds: string[] }).kinds, [HOSTILE]);
  assert.equal((props[5] as { fields: unknown[] }).fields.length, fieldMeta().length);
});

Deno.test("page: without a built bundle it says how to build, and has no script", () => {
  const html = renderConsolePage({ script: null, stylesheets: [], fields: [], kinds: [] });
  assert.match(html, /deno task build/);
  assert.doesNotMatch(html, /type="module"/);
});

Deno.test("CONSOLE_CSP is exactly the policy of docs/architecture.md, Console", () => {
  assert.equal(
    CONSOLE_CSP,
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  );
});

Deno.test("islands render their no-key state on the server", () => {
  assert.match(renderToString(<KeyGate />), /<input id="process-key"[^>]*type="password"/);
  assert.match(renderToString(<OrchestratorPanel />), /Orchestrator: unknown/);
  assert.match(renderToString(<EventStream kinds={[]} />), /Enter the process key/);
  const cfg = renderToString(<ConfigEditor fields={fieldMeta()} />);
  assert.match(cfg, /Enter the process key to load the configuration/);
  assert.match(cfg, /data-field="home_control_area"/);
  assert.doesNotMatch(cfg, /<input/, "no inputs before values are loaded");
  assert.match(renderToString(<DeliveryDays />), /Enter the process key to see the delivery days/);
});

Deno.test("KeyGate: stored key offers Forget; 401/403/503 give the service's sentence as text", () => {
  try {
    apiKey.value = "k";
    assert.match(renderToString(<KeyGate />), /Forget key/);
    assert.doesNotMatch(renderToString(<KeyGate />), /process-key/);
    authProblem.value = { status: 503, detail: "Authentication is not configured: <b>set</b> X." };
    const html = renderToString(<KeyGate />);
    assert.match(html, /fail-closed/);
    assert.match(html, /Authentication is not configured: &lt;b>set&lt;\/b> X\./);
    authProblem.value = { status: 401, detail: "The API key is not valid." };
    assert.match(renderToString(<KeyGate />), /Replace key.*refused this key \(401\)/s);
    authProblem.value = { status: 403, detail: "needs process" };
    assert.match(renderToString(<KeyGate />), /may not use the console \(403\)/);
  } finally {
    apiKey.value = null;
    authProblem.value = null;
  }
});

Deno.test("fieldMeta: kinds from the schemas; secrets write-only; enum options", () => {
  const m = Object.fromEntries(fieldMeta().map((f) => [f.name, f]));
  assert.equal(m.sftp_port.kind, "number");
  assert.equal(m.active_control_areas.kind, "list");
  assert.equal(m.sftp_password.kind, "secret");
  assert.equal(m.sftp_private_key.multiline, true);
  assert.equal(m.market_platform_api_key.kind, "secret");
  assert.deepEqual(m.publish_target.options, ["auto", "sftp", "outbox"]);
  assert.equal(m.home_control_area.kind, "text");
});
