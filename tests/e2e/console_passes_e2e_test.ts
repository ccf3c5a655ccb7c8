/**
 * Passes in the console (docs/console.md, "Pass history"; issue 20, item 4): "Run orchestrator
 * now" updates the status bar at once (not at its 30 s poll) and imports the TSO inbox; the
 * pass list shows the pass and, opened, per day what failed and why and what was not tried;
 * "Import answers" shows the import's answer per file. The outbox lies in /sys, where nobody may
 * write, so every publish fails in words. Real service, real clock.
 *
 * Skipped with a printed reason when Chromium is missing, unless REQUIRE_E2E=1.
 */
import assert from "node:assert/strict";
import { addDays, nextOpenDay, quarterHourCount } from "../../lib/domain/delivery_day.ts";
import { ensureBundle } from "../../lib/console/bundle.ts";
import { call, startServer } from "../support/app.ts";
import {
  type Chromium,
  launchChromium,
  shot,
  skipBrowserTests,
  watchProblems,
} from "../support/chromium.ts";
import { EXT, ext, postForecast, PROC } from "../support/day_ahead_rig.ts";
import { AREAS, maloId } from "../support/portfolio.ts";
import { tempDir } from "../support/temp.ts";

/** A manual pass refreshes the status bar, imports the inbox, shows in the pass list. */
async function manualPass(chromium: Chromium) {
  await using tmp = await tempDir("console-passes-e2e-");
  const inbox = `${tmp.path}/inbox`;
  await Deno.mkdir(inbox);
  const s = await startServer({
    PROCESS_API_KEYS: `ops:${PROC}`,
    EXTERNAL_API_KEYS: `acme:${EXT}`,
    RATE_LIMIT_PER_MINUTE: "0",
    OUTBOX_DIR: "/sys/bridge-passes-e2e",
    SCHEDULE_INBOX_DIR: inbox,
  });
  const b = await chromium.newPage();
  const page = b.page;
  const problems = await watchProblems(page);
  const day = addDays(nextOpenDay(Date.now()), 1);
  try {
    const r = await call(`${s.url}/v1/market-locations/${maloId(1)}`, {
      method: "PUT",
      headers: ext,
      body: JSON.stringify({ control_area: AREAS.amprion, direction: "generation", name: "PV" }),
    });
    assert.ok(r.status === 201 || r.status === 200, JSON.stringify(r.body));
    await postForecast(s, 1, day, Array(quarterHourCount(day)).fill(1_000));
    await Deno.writeTextFile(`${inbox}/a_junk.xml`, "<not-an-answer/>");

    await page.goto(`${s.url}/console`);
    await page.waitForSelector("html[data-ready=true]");
    await page.fill("#process-key", PROC);
    await page.press("#process-key", "Enter");
    await page.locator(".pill[data-state=stopped]").waitFor();
    await page.getByText("No pass yet").waitFor();
    assert.doesNotMatch(await page.locator(".pill-note").innerText(), /last pass/);

    await page.getByRole("button", { name: "Run orchestrator now…" }).click();
    await page.getByRole("button", { name: "Yes, run it now" }).click();
    // The status bar tells of the pass at once (its own poll is 30 s away).
    await page.locator(".pill[data-health=amber]").waitFor({ timeout: 5_000 });
    assert.match(
      await page.locator(".pill-note").innerText(),
      /last pass .*\(ops\): partial, \d+ steps? run, \d+ failed/,
    );
    // The manual pass imported the inbox first.
    assert.deepEqual([...Deno.readDirSync(`${inbox}/rejected`)].map((e) => e.name).sort(), [
      "a_junk.xml",
      "a_junk.xml.reason.txt",
    ]);

    // The pass list: one manual, partial pass; opened, the day's failure and what was not tried.
    const pass = page.locator(".pass");
    await pass.first().waitFor();
    assert.equal(await pass.count(), 1);
    assert.equal(await pass.getAttribute("data-outcome"), "partial");
    assert.match(await pass.locator("summary").innerText(), /manual, by ops .* partial/);
    await pass.locator("summary").click();
    const dayLine = pass.locator(".pass-days li", { hasText: day });
    const text = await dayLine.innerText();
    assert.match(text, /publish failed: Publishing \S+ failed: the service may not write to/);
    assert.match(text, /\/sys\/bridge-passes-e2e: check the directory and the permissions/);
    assert.match(text, /submit not tried: the day's pass stops at its first failure/);
    await shot(page, "passes-drilldown");

    // "Import answers": the import's answer per file.
    await Deno.writeTextFile(`${inbox}/b_junk.xml`, "<still-not-an-answer/>");
    await page.getByRole("button", { name: "Import answers" }).click();
    await page.getByText(/^Import answers: b_junk\.xml: rejected: Not a TSO answer/).waitFor();
    assert.deepEqual(problems.exceptions, []);
    assert.deepEqual(problems.csp, []);
  } finally {
    await b.close();
    await s.close();
  }
}

/** An outbox the service may not write is refused in words at its field. */
async function outboxRefused(chromium: Chromium) {
  const s = await startServer({ PROCESS_API_KEYS: `ops:${PROC}`, RATE_LIMIT_PER_MINUTE: "0" });
  const b = await chromium.newPage();
  const page = b.page;
  try {
    await page.goto(`${s.url}/console`);
    await page.waitForSelector("html[data-ready=true]");
    await page.fill("#process-key", PROC);
    await page.press("#process-key", "Enter");
    const row = page.locator('.field[data-field="outbox_dir"]');
    await row.locator("input").fill("/sys/bridge-outbox-e2e");
    await page.getByRole("button", { name: "Save 1 change" }).click();
    const error = row.locator(".field-error");
    await error.waitFor();
    assert.equal(
      (await error.innerText()).trim(),
      "the service may not write to /sys/bridge-outbox-e2e: check the directory and the permissions of the service's user",
    );
    assert.equal(await row.locator("input").getAttribute("aria-invalid"), "true");
    assert.equal(await page.getByText("Saved", { exact: true }).count(), 0, "nothing was saved");
    await shot(page, "outbox-refused");
  } finally {
    await b.close();
    await s.close();
  }
}

// One Chromium for both: each test has its own app and browser context.
Deno.test({
  name: "console e2e: manual pass and pass list; an outbox refused at its field",
  ignore: skipBrowserTests("console passes e2e"),
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  await ensureBundle();
  await using chromium = await launchChromium();
  await t.step(
    "a manual pass refreshes the status bar, imports the inbox, shows in the pass list",
    () => manualPass(chromium),
  );
  await t.step(
    "an outbox the service may not write is refused in words at its field",
    () => outboxRefused(chromium),
  );
});
