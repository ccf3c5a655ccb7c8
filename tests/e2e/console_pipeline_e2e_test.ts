/**
 * The console against the real pipeline, nothing mocked (docs/architecture.md, "Console"; docs/pipeline.md): an
 * operator drives one delivery day through the manual-step buttons — forecast, aggregate, publish
 * (local outbox), submit (market-platform simulator over TLS) — and watches the overview, the
 * chart and the event stream follow; a newer customer forecast then marks the steps stale live.
 *
 * The day is the one after the next open day, so its gate closure is at least a day ahead of the
 * real clock the browser and the service share. Skipped with a printed reason when Chromium is
 * missing, unless REQUIRE_E2E=1.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { startSimulator } from "../../dev/market_platform_simulator.ts";
import { addDays, nextOpenDay, quarterHourCount } from "../../lib/domain/delivery_day.ts";
import { ensureBundle } from "../../lib/console/bundle.ts";
import { call, startServer } from "../support/app.ts";
import { launchBrowser, shot, skipBrowserTests, watchProblems } from "../support/chromium.ts";
import { AREAS, maloId } from "../support/portfolio.ts";
import { EXT, ext, postForecast, PROC } from "../support/day_ahead_rig.ts";
import { tempDir } from "../support/temp.ts";

/** A flat customer forecast (kW) for every quarter-hour of `day`. */
const flatDay = (day: string, kw: number) => Array(quarterHourCount(day)).fill(kw);

/** The cells of one overview row: forecast, aggregated, published, submitted. */
const cells = (page: Page, day: string) => {
  const row = page.locator(`tr[data-day="${day}"]`);
  return {
    row,
    forecast: row.locator("td").nth(2),
    aggregated: row.locator("td").nth(3),
    published: row.locator("td").nth(4),
    submitted: row.locator("td").nth(5),
  };
};

Deno.test({
  name: "console e2e: one delivery day through the real pipeline from the buttons",
  ignore: skipBrowserTests("console pipeline e2e"),
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  await ensureBundle();
  const sim = await startSimulator();
  await using tmp = await tempDir("console-pipe-e2e-");
  const dir = tmp.path;
  await Deno.writeTextFile(`${dir}/ca.pem`, sim.caCert);
  const s = await startServer({
    PROCESS_API_KEYS: `ops:${PROC}`,
    EXTERNAL_API_KEYS: `acme:${EXT}`,
    RATE_LIMIT_PER_MINUTE: "0",
    MARKET_PLATFORM_URL: sim.url,
    MARKET_PLATFORM_API_KEY: sim.apiKey,
    MARKET_PLATFORM_CA_FILE: `${dir}/ca.pem`,
    MARKET_PLATFORM_TIMEOUT_SECONDS: "10",
    BALANCING_GROUP: "11XDE-EXAMPLE--H",
    SENDER_EIC: "11XDE-EXAMPLE--H",
    OUTBOX_DIR: `${dir}/outbox`,
  });
  const b = await launchBrowser();
  const page = b.page;
  const problems = await watchProblems(page);
  const day = addDays(nextOpenDay(Date.now()), 1);
  try {
    // Master data: one household profile per control area (generated), one PV park (customer).
    const areas = Object.values(AREAS);
    for (const [i, area] of areas.entries()) {
      const r = await call(`${s.url}/v1/market-locations/${maloId(i + 1)}`, {
        method: "PUT",
        headers: ext,
        body: JSON.stringify({
          control_area: area,
          direction: "consumption",
          standard_load_profile: "H0",
          annual_kwh: 20_000_000 * (i + 1),
          name: `households ${i + 1}`,
        }),
      });
      assert.ok(r.status === 201 || r.status === 200, JSON.stringify(r.body));
    }
    const pv = await call(`${s.url}/v1/market-locations/${maloId(9)}`, {
      method: "PUT",
      headers: ext,
      body: JSON.stringify({ control_area: AREAS.amprion, direction: "generation", name: "PV" }),
    });
    assert.ok(pv.status === 201 || pv.status === 200, JSON.stringify(pv.body));
    await postForecast(s, 9, day, flatDay(day, 1_000));

    await page.goto(`${s.url}/console`);
    await page.waitForSelector("html[data-ready=true]");
    await page.fill("#process-key", PROC);
    await page.press("#process-key", "Enter");
    const c = cells(page, day);

    await t.step("the day appears with its input and no step run yet", async () => {
      await c.row.waitFor();
      assert.match(await c.row.locator("td").nth(1).innerText(), /v1/);
      assert.equal((await c.aggregated.innerText()).trim(), "—");
      // Nothing sent yet: the Submitted cell names the deadline (docs/console.md, "Rows").
      assert.match(
        (await c.submitted.innerText()).trim(),
        /^nothing sent — TSO deadline \d\d:\d\d Berlin in \d/,
      );
    });

    await t.step("forecast, aggregate, publish, submit from the buttons", async () => {
      await page.getByRole("button", { name: `Forecast ${day}` }).click();
      await page.getByText(`Forecast ${day}: done.`).waitFor();
      await c.forecast.getByText("✓").waitFor();

      await page.getByRole("button", { name: `Aggregate ${day}` }).click();
      await page.getByText(`Aggregate ${day}: done.`).waitFor();
      await c.aggregated.getByText("✓").waitFor();
      assert.match(await c.aggregated.innerText(), /ops/);
      // The chart of the selected day: one series per active control area. The operator selects
      // the day (the one selected at first may be tomorrow's row, which has no state before noon).
      await c.row.locator("th button", { hasText: day }).click();
      await page.locator("svg.chart-svg polyline.series").nth(3).waitFor();
      assert.equal(await page.locator("svg.chart-svg polyline.series").count(), 4);
      for (const area of areas) {
        await page.locator(".legend li", { hasText: area }).waitFor();
      }

      await page.getByRole("button", { name: `Publish ${day}` }).click();
      await page.getByText(`Publish ${day}: done.`).waitFor();
      await c.published.getByText("✓").waitFor();
      const files = [...Deno.readDirSync(`${dir}/outbox`)].map((f) => f.name);
      assert.equal(
        files.filter((f) => f.includes(day) && f.endsWith(".csv")).length,
        1,
        files.join(),
      );

      await page.getByRole("button", { name: `Submit ${day}` }).click();
      await page.getByRole("button", { name: `Yes, submit ${day}` }).click();
      await page.getByText(`Submit ${day}: done.`).waitFor();
      await c.submitted.getByText("✓").waitFor();
      assert.equal(sim.submissions().length, 1);
      assert.equal(sim.submissions()[0].body.delivery_day, day);

      for (const kind of ["positions_aggregated", "csv_published", "schedules_submitted"]) {
        await page.locator(`.ev[data-kind="${kind}"]`).first().waitFor({ timeout: 3000 });
      }
      await shot(page, "13-pipeline-submitted");
    });

    await t.step("a newer customer forecast marks the steps stale without a reload", async () => {
      const input = c.row.locator("td").nth(1);
      const before = Number(/v(\d+)/.exec(await input.innerText())?.[1]);
      await postForecast(s, 9, day, flatDay(day, 2_500));
      await c.aggregated.getByText("stale").waitFor({ timeout: 5000 });
      await c.submitted.getByText("stale").waitFor({ timeout: 5000 });
      assert.match(await c.aggregated.innerText(), /newer forecast/);
      assert.match(await input.innerText(), new RegExp(`v${before + 1}\\b`));
      await shot(page, "14-pipeline-stale");
    });

    assert.deepEqual(problems.csp, [], "no CSP violation");
    assert.deepEqual(problems.exceptions, [], "no uncaught exception");
  } finally {
    await b.close();
    await s.close();
    await sim.close();
  }
});
