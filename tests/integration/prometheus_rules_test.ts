/**
 * The alert rules of deploy/prometheus/alerts.yml (docs/metrics.md, "Alerts"), checked and unit
 * tested by Debian's `promtool`: each alert fires on the series that break its rule, stays
 * silent on the healthy ones, and says why in its summary
 * (tests/fixtures/prometheus/alerts_test.yml).
 */
import assert from "node:assert/strict";
import { fileURLToPath as fromFileUrl } from "node:url";
import { promtool, PROMTOOL_PATH, skipWithout } from "../support/prometheus.ts";

const RULES = fromFileUrl(new URL("../../deploy/prometheus/alerts.yml", import.meta.url));
const CASES = fromFileUrl(new URL("../fixtures/prometheus/alerts_test.yml", import.meta.url));
const ignore = skipWithout(PROMTOOL_PATH, "alert rules (promtool)");

Deno.test({
  name: "promtool check rules: the alert file is valid and every alert has a summary",
  ignore,
  async fn() {
    const r = await promtool(["check", "rules", RULES]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /SUCCESS: 7 rules found/);
    const text = await Deno.readTextFile(RULES);
    const alerts = [...text.matchAll(/- alert: (\w+)/g)].map((m) => m[1]);
    assert.equal(alerts.length, 7);
    assert.equal([...text.matchAll(/^\s+summary: /gm)].length, alerts.length);
  },
});

Deno.test({
  name: "promtool test rules: each alert fires on its cause and only there",
  ignore,
  async fn() {
    const r = await promtool(["test", "rules", CASES]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /SUCCESS/);
  },
});

Deno.test({
  name: "promtool test rules fails when an alert would not fire (the cases can fail)",
  ignore,
  async fn() {
    // The same cases against rules whose threshold was loosened: the passes alert never fires.
    const dir = await Deno.makeTempDir({ prefix: "bridge-rules-" });
    try {
      const rules = (await Deno.readTextFile(RULES)).replace(
        "failed_passes_in_a_row >= 3",
        "failed_passes_in_a_row >= 30",
      );
      await Deno.writeTextFile(`${dir}/alerts.yml`, rules);
      const cases = (await Deno.readTextFile(CASES)).replace(
        "../../../deploy/prometheus/alerts.yml",
        `${dir}/alerts.yml`,
      );
      await Deno.writeTextFile(`${dir}/cases.yml`, cases);
      const r = await promtool(["test", "rules", `${dir}/cases.yml`]);
      assert.notEqual(r.code, 0);
      assert.match(r.stdout + r.stderr, /FahrplanPassesFailing/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
