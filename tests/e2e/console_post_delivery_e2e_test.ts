/**
 * The post-delivery correction in the console's after-delivery view, in a real browser against
 * the real routes (docs/console_after_delivery.md; docs/post-delivery.md). On a fake clock a
 * Friday delivery in Amprion gets its day-ahead version (1 MW) and the TSO simulator's answers;
 * on Saturday its actuals and reBAP prices arrive; on Monday 10:00 an operator opens the day:
 *
 * - "Correction possible until Mon 30 Nov 16:00 (Amprion)";
 * - "Set the schedule to the actual…" asks in words with the numbers of
 *   `GET /v1/delivery-days/{day}/post-delivery` (formatted here, apart from the console's helpers),
 *   with no WCAG 2.1 A/AA violation axe-core finds, light and dark;
 * - confirmed, the correction leaves (v2 in the outbox), the simulator confirms it, and the view
 *   lists it as confirmed without a reload; the version history shows it as a post-delivery
 *   correction that the TSO has;
 * - after 16:00 the view says the window closed and offers no button.
 *
 * Skipped with a printed reason when Chromium is missing, unless REQUIRE_E2E=1.
 */
import assert from "node:assert/strict";
import { ensureBundle } from "../../lib/console/bundle.ts";
import { deliveryDay } from "../../lib/domain/delivery_day.ts";
import type { PostDelivery } from "../../lib/wire/post_delivery.ts";
import { rebapFile } from "../../dev/metering_simulator.ts";
import { call } from "../support/app.ts";
import { energy, money } from "../../lib/console/format.ts";
import { plain } from "../support/figures.ts";
import { axeViolations } from "../support/axe.ts";
import { launchChromium, shotOf, skipBrowserTests, watchProblems } from "../support/chromium.ts";
import { ext, PROC, proc } from "../support/day_ahead_rig.ts";
import { PARTIES } from "../support/fahrplan.ts";
import { startWalk, TSO } from "../support/intraday_walk.ts";
import { AREAS, maloId } from "../support/portfolio.ts";

const DAY = "2026-11-27"; // Friday
const kwhAt = (i: number) => 150 + (i % 8) * 50;

Deno.test({
  name:
    "console e2e: post-delivery correction — the window, the proposal confirmed in words, sent, confirmed, then closed",
  ignore: skipBrowserTests("console post-delivery e2e"),
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  await ensureBundle();
  const w = await startWalk(DAY);
  await using chromium = await launchChromium();
  try {
    await w.forecast(1_000);
    await w.pass();
    w.at(1, "10:00");
    const rows = deliveryDay(DAY).quarterHours.map((q, i) =>
      `${maloId(1)},${q.toString()},${kwhAt(i)}`
    );
    for (
      const [path, headers, body] of [
        ["/v1/actuals", ext, ["market_location_id,start,kwh", ...rows].join("\n")],
        ["/v1/imbalance-prices", proc, rebapFile(DAY)],
      ] as const
    ) {
      const r = await call(`${w.r.s.url}${path}`, {
        method: "POST",
        headers: { ...headers, "content-type": "text/csv" },
        body,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
    w.at(3, "10:00");
    const g = await call(`${w.r.s.url}/v1/delivery-days/${DAY}/post-delivery`, { headers: proc });
    const p = (g.body as PostDelivery).areas[0].proposal!;

    const b = await chromium.newPage({ viewport: { width: 1440, height: 1000 }, locale: "en-GB" });
    const page = b.page;
    const problems = await watchProblems(page);
    try {
      await page.clock.setFixedTime(new Date(w.r.clock.now()));
      await page.goto(`${w.r.s.url}/console`);
      await page.waitForSelector("html[data-ready=true]");
      await page.fill("#process-key", PROC);
      await page.press("#process-key", "Enter");
      await page.locator(`#day-${DAY} button`).first().click();
      const part = page.locator(`#days .post-delivery[data-area="${AREAS.amprion}"]`);
      await part.waitFor();
      assert.equal(
        plain(await part.locator(".post-delivery-window").innerText()),
        "Correction possible until Mon 30 Nov 16:00 (Amprion) · the TSO's calendar",
      );

      await part.getByRole("button", { name: "Set the schedule to the actual…" }).click();
      const question = plain(await part.locator(".confirm-q").innerText());
      assert.equal(
        question,
        `Send a correction of Fri 27 Nov to Amprion replacing v1: the schedule becomes the actual in ${p.changed_quarter_hours} quarter-hours, moving ${
          plain(energy(p.moved_short_mwh, "en-GB"))
        } short and ${
          plain(energy(p.moved_long_mwh, "en-GB"))
        } long imbalance to the counterparty (worth ${
          plain(money(p.value_eur_total!, "en-GB"))
        } at reBAP). Possible until Mon 30 Nov 16:00.`,
      );
      assert.equal(p.changed_quarter_hours, 84);
      for (const scheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        assert.deepEqual(
          await axeViolations(page, "#days .after-delivery"),
          [],
          `the question open, ${scheme}`,
        );
      }
      await page.emulateMedia({ colorScheme: "light" });
      await shotOf(part, "35-post-delivery-confirm");
      await part.getByRole("button", { name: "Yes, send the correction" }).click();
      const file = `20261127_TPS_${PARTIES.sender}_${TSO}_002.xml`;
      await part.getByText(
        `Correction v2 sent to Amprion (${file}): 84 quarter-hours set to the actual.`,
      ).waitFor();
      assert.ok(w.files().includes(file));

      // The TSO confirms; the live event re-reads the view.
      await w.answers();
      const sent = part.locator('.corrections li[data-version="2"]');
      await page.waitForFunction(
        () =>
          /confirmed/.test(
            document.querySelector('.post-delivery .corrections li[data-version="2"]')
              ?.textContent ?? "",
          ),
        undefined,
        { timeout: 10_000 },
      );
      assert.equal(
        plain(await sent.innerText()),
        "post-delivery correction v2 sent Mon 30 Nov 10:00 · confirmed",
      );

      // The version history: the correction, the TSO has it.
      const area = page.locator(`.schedules li[data-area="${AREAS.amprion}"]`);
      await area.locator(".version-history > summary").click();
      const v2 = area.locator('.versions-table tbody tr[data-version="2"]');
      await v2.waitFor();
      assert.match(plain(await v2.innerText()), /v2 \(the TSO has it\)/);
      assert.match(plain(await v2.innerText()), /post-delivery correction/);
      assert.match(plain(await v2.innerText()), /after delivery/);
      assert.match(plain(await v2.innerText()), /confirmed/);
      // The day's phase line names the correction; no "locked" deviation against it: the
      // forecast error locked at delivery is measured against the schedule the TSO had then.
      const box = plain(await page.locator("#days .chart-box").innerText());
      // The count in the TSO summary, not again in the phase line under it (issue 36, item 10).
      assert.match(
        box,
        /confirmed: schedule v2 in 1 of 1 areas \(aggregate v1\) post-delivery correction v2 /,
      );
      assert.doesNotMatch(box, /scheduled away/);
      assert.match(
        plain(await area.innerText()),
        /schedule v2 confirmed ?post-delivery correction, sent 10:00 Berlin/,
      );
      await shotOf(page.locator("#days .chart-box"), "35-post-delivery-sent");

      // After 16:00: closed, no button.
      w.at(3, "16:01");
      await page.clock.setFixedTime(new Date(w.r.clock.now()));
      await page.reload();
      await page.waitForSelector("html[data-ready=true]");
      await page.locator(`#day-${DAY} button`).first().click();
      await part.waitFor();
      assert.equal(
        plain(await part.locator(".post-delivery-window").innerText()),
        "Corrections closed Mon 30 Nov 16:00 (Amprion) · the TSO's calendar",
      );
      assert.equal(await part.getByRole("button").count(), 0);
      assert.deepEqual(problems.csp, []);
      assert.deepEqual(problems.exceptions, []);
    } finally {
      await b.close();
    }
  } finally {
    await w.close();
  }
});
