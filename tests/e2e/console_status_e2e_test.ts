/**
 * The badge follows the real status of prices and actuals (issue 36, item 6), in Chromium at 1440
 * px (en-GB, light) and 390 px (de-DE, touch, dark), on the morning after of
 * tests/support/morning_after.ts: yesterday is priced by the TSOs' AEP estimate, so its line in
 * the attention box and its view say `provisional` and "estimated", never `final`; once the reBAP
 * arrives the line follows the service's status; the month is `provisional` while it is not over,
 * however many of its days are final.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { ensureBundle } from "../../lib/console/bundle.ts";
import type { DaySettlement } from "../../lib/wire/settlement.ts";
import { rebapFile } from "../../dev/metering_simulator.ts";
import { call } from "../support/app.ts";
import {
  type Chromium,
  DESKTOP,
  launchChromium,
  openConsole,
  PHONE,
  shotOf,
  skipBrowserTests,
  watchProblems,
} from "../support/chromium.ts";
import { PROC, proc } from "../support/day_ahead_rig.ts";
import { MORNING, type MorningAfter, morningAfter, YESTERDAY } from "../support/morning_after.ts";
import { plain } from "../support/figures.ts";
import { axeViolations } from "../support/axe.ts";

async function settlement(m: MorningAfter): Promise<DaySettlement> {
  const r = await call(`${m.r.s.url}/v1/delivery-days/${YESTERDAY}/settlement`, { headers: proc });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as DaySettlement;
}

/** The yesterday line's words and its badge. */
async function line(page: Page): Promise<{ text: string; badge: string }> {
  const l = page.locator(".attention-yesterday");
  await l.locator(".badge").waitFor();
  return { text: plain(await l.innerText()), badge: await l.locator(".badge").innerText() };
}

/** Opens a viewport and checks the line, the day's view and the month. */
async function check(
  chromium: Chromium,
  m: MorningAfter,
  opts: Parameters<Chromium["newPage"]>[0],
  tap: boolean,
  name: string,
) {
  const b = await chromium.newPage(opts);
  const problems = await watchProblems(b.page);
  const page = b.page;
  try {
    await openConsole(page, m.r.s.url, PROC, MORNING);
    const s = await settlement(m);
    assert.equal(s.status, "provisional", "priced by the estimate");
    const l = await line(page);
    assert.equal(l.badge, "provisional");
    assert.match(l.text, /\. provisional estimated$/);
    await shotOf(page.locator(".attention"), `36-status-${name}`);
    const link = page.locator(".attention-yesterday").getByRole("link", { name: "Yesterday" });
    await (tap ? link.tap() : link.click());
    const day = page.locator("#days .after-delivery .settlement-day");
    await day.waitFor();
    assert.equal(await day.locator(".badge").first().innerText(), "provisional");
    assert.match(
      plain(await page.locator("#days .after-delivery").innerText()),
      /estimated: the reBAP is published after quality assurance \(\d+ quarter-hours priced by the TSOs' AEP estimate\)/,
    );
    // The month of yesterday is not over (the clock is on 25 November): provisional.
    const section = page.locator("#settlement");
    const show = section.getByRole("button", { name: "Show November 2026" });
    await (tap ? show.tap() : show.click());
    await section.locator(`.month-table tbody tr[data-day="${YESTERDAY}"]`).waitFor();
    assert.equal(await section.locator(".month-nav .badge").innerText(), "provisional");
    assert.deepEqual(await axeViolations(page, [".attention", "#settlement"]), []);
    assert.deepEqual([problems.csp, problems.exceptions], [[], []]);
  } finally {
    await b.close();
  }
}

Deno.test({
  name:
    "console e2e: the status badge follows prices and actuals, the month until it is over (390/1440 px)",
  ignore: skipBrowserTests("console status e2e"),
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  await ensureBundle();
  const m = await morningAfter();
  await using chromium = await launchChromium();
  try {
    await t.step(
      "1440 px, en-GB, light: estimated, provisional",
      () =>
        check(
          chromium,
          m,
          DESKTOP,
          false,
          "1440",
        ),
    );
    await t.step("390 px, de-DE, touch, dark: estimated, provisional", () =>
      check(
        chromium,
        m,
        PHONE,
        true,
        "390",
      ));
    await t.step(
      "the reBAP replaces the estimate: the line says what the service says",
      async () => {
        const r = await call(`${m.r.s.url}/v1/imbalance-prices`, {
          method: "POST",
          headers: { ...proc, "content-type": "text/csv" },
          body: rebapFile(YESTERDAY),
        });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        const s = await settlement(m);
        assert.ok(s.areas.every((a) => a.completeness.estimated_quarter_hours === 0));
        const b = await chromium.newPage(DESKTOP);
        try {
          await openConsole(b.page, m.r.s.url, PROC, MORNING);
          const l = await line(b.page);
          assert.equal(s.status, "final", "every price a reBAP, every location metered");
          assert.equal(l.badge, "final");
          assert.doesNotMatch(l.text, /estimated/);
          const section = b.page.locator("#settlement");
          await section.getByRole("button", { name: "Show November 2026" }).click();
          await section.locator(`.month-table tbody tr[data-day="${YESTERDAY}"]`).waitFor();
          assert.equal(
            await section.locator(".month-nav .badge").innerText(),
            "provisional",
            "November is not over",
          );
        } finally {
          await b.close();
        }
      },
    );
  } finally {
    await m.close();
  }
});
