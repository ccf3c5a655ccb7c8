/**
 * The TSO's answers where the operator looks (docs/fahrplan.md; docs/architecture.md, "Console"): an operator submits one delivery day from the
 * button on the `files` channel, the TSO simulator answers every ESS document (a CNF for three
 * control areas, an ANO for the fourth), the answers are imported, and the selected day's
 * schedule list follows without a reload: "anomaly in 1 of 4 areas · 3 confirmed", the anomaly with the TSO's reason in
 * words; the ESS button saves the very document handed to the TSO.
 *
 * Real parts: the app on 127.0.0.1 with a temp-file KV, the outbox and inbox on disk, the TSO
 * simulator (dev/tso_simulator.ts), Chromium. Skipped with a printed reason when Chromium is
 * missing, unless REQUIRE_E2E=1.
 */
import assert from "node:assert/strict";
import { startTsoSimulator } from "../../dev/tso_simulator.ts";
import { ensureBundle } from "../../lib/console/bundle.ts";
import { addDays, nextOpenDay, quarterHourCount } from "../../lib/domain/delivery_day.ts";
import { call, startServer } from "../support/app.ts";
import { launchBrowser, shot, skipBrowserTests, watchProblems } from "../support/chromium.ts";
import { EXT, ext, postForecast, PROC, proc } from "../support/day_ahead_rig.ts";
import { FILES_CHANNEL_ENV, PARTIES } from "../support/fahrplan.ts";
import { AREAS, maloId } from "../support/portfolio.ts";
import { tempDir } from "../support/temp.ts";

Deno.test({
  name: "console e2e: schedules of a day show the TSO's answers and download the ESS document",
  ignore: skipBrowserTests("console schedules e2e"),
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  await ensureBundle();
  await using tmp = await tempDir("console-sched-e2e-");
  const dir = tmp.path;
  const s = await startServer({
    PROCESS_API_KEYS: `ops:${PROC}`,
    EXTERNAL_API_KEYS: `acme:${EXT}`,
    RATE_LIMIT_PER_MINUTE: "0",
    ...FILES_CHANNEL_ENV,
    OUTBOX_DIR: `${dir}/outbox`,
    SCHEDULE_INBOX_DIR: `${dir}/inbox`,
  });
  const tsos = startTsoSimulator({
    outbox: `${dir}/outbox`,
    inbox: `${dir}/inbox`,
    mismatchAreas: [AREAS.tennet],
    pollMs: 50,
    // Later than the overview's reload after the submit step: only the answer events can
    // bring the CNF and ANO onto the page.
    cnfDelayMs: 2_000,
  });
  const b = await launchBrowser();
  const page = b.page;
  const problems = await watchProblems(page);
  const day = addDays(nextOpenDay(Date.now()), 1);
  try {
    const areas = Object.values(AREAS);
    for (const [i, area] of areas.entries()) {
      const r = await call(`${s.url}/v1/market-locations/${maloId(i + 1)}`, {
        method: "PUT",
        headers: ext,
        body: JSON.stringify({ control_area: area, direction: "consumption", name: `load ${i}` }),
      });
      assert.ok(r.status === 201 || r.status === 200, JSON.stringify(r.body));
      await postForecast(s, i + 1, day, Array(quarterHourCount(day)).fill(1_000 * (i + 1)));
    }

    await page.goto(`${s.url}/console`);
    await page.waitForSelector("html[data-ready=true]");
    await page.fill("#process-key", PROC);
    await page.press("#process-key", "Enter");
    const row = page.locator(`tr[data-day="${day}"]`);
    await row.waitFor();
    await row.locator("[aria-pressed]").first().click();

    await page.getByRole("button", { name: `Aggregate ${day}` }).click();
    await page.getByText(`Aggregate ${day}: done.`).waitFor();
    await page.getByRole("button", { name: `Submit ${day}` }).click();
    await page.getByRole("button", { name: `Yes, submit ${day}` }).click();
    await page.getByText(`Submit ${day}: done.`).waitFor();

    // The simulator answers from its own poll; each import is what an orchestrator tick does.
    const list = page.locator(".schedules");
    for (let i = 0; i < 100; i++) {
      const r = await call(`${s.url}/v1/schedule-responses/import`, {
        method: "POST",
        headers: proc,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      if (/anomaly in 1 of 4 areas · 3 confirmed/.test(await list.innerText().catch(() => ""))) {
        break;
      }
      await page.waitForTimeout(100);
    }
    await list.getByText("anomaly in 1 of 4 areas · 3 confirmed").waitFor({ timeout: 3000 });
    const ano = list.locator(`li[data-area="${AREAS.tennet}"]`);
    assert.match(await ano.innerText(), /anomaly/);
    assert.match(await ano.locator(".reason").innerText(), /\S/, "the TSO's reason in words");
    for (const area of areas.filter((a) => a !== AREAS.tennet)) {
      assert.match(await list.locator(`li[data-area="${area}"]`).innerText(), /confirmed/);
    }
    await shot(page, "15-schedules-answers");

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: `ESS document ${AREAS.amprion}` }).click(),
    ]);
    const name = download.suggestedFilename();
    assert.match(name, new RegExp(`^${day.replaceAll("-", "")}_TPS_${PARTIES.sender}_.+\\.xml$`));
    const saved = await Deno.readTextFile(String(await download.path()));
    assert.match(saved, /<ScheduleMessage/);
    assert.match(saved, new RegExp(AREAS.amprion));

    assert.deepEqual(problems.csp, [], "no CSP violation");
    assert.deepEqual(problems.exceptions, [], "no uncaught exception");
  } finally {
    await b.close();
    await tsos.close();
    await s.close();
  }
});
