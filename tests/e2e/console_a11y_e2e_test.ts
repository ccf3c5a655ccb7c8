/**
 * The console with a keyboard, a screen reader's rules and a phone (docs/console.md, "Keyboard and
 * accessibility"; issue 28), at 390 and 1440 px on a healthy evening (tests/support/evening.ts):
 *
 * - axe-core finds no WCAG 2.1 A/AA violation (light and dark; a version history open);
 * - the keyboard path "enter the key → today's row → its version history" in a handful of keys:
 *   the focus goes to what needs attention after the key, its "Today" link selects today's row,
 *   the row's "schedules and versions ↓" link leads to the schedules; skip links come first;
 * - the chart opens on today; the Input cell says "customer forecast" once; a tapped day on a phone
 *   opens its chart under its card (no jump past the other cards); the events' Kind column shows
 *   a whole `schedule_answer_rejected`; the phone header keeps "Scheduling bridge" on one line;
 *   confirming start/stop leaves the focus on the button; nothing changes in the page while it
 *   idles (no tick drawn every second); no console error (no negative `<rect>` width);
 * - after a refused key neither an empty event box nor a configuration list without values stays.
 *
 * Real parts: the app on 127.0.0.1 with a temp-file KV and a fake clock (the page's clock set to
 * the same instant), the outbox and inbox on disk, Chromium, axe-core injected into the page.
 * Skipped with a printed reason when Chromium is missing, unless REQUIRE_E2E=1.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { ensureBundle } from "../../lib/console/bundle.ts";
import { launchChromium, skipBrowserTests, watchProblems } from "../support/chromium.ts";
import { axeViolations } from "../support/axe.ts";
import { PROC } from "../support/day_ahead_rig.ts";
import { EVENING, evening, TODAY } from "../support/evening.ts";
import { tempDir } from "../support/temp.ts";

/** Opens the console and enters the key with the keyboard. */
async function enterKey(page: Page, url: string, key = PROC) {
  await page.goto(`${url}/console`);
  await page.waitForSelector("html[data-ready=true]");
  await page.locator("#process-key").focus();
  await page.keyboard.type(key);
  await page.keyboard.press("Enter");
}

/** The focused element, described. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return el
      ? `${el.tagName.toLowerCase()}#${el.id}.${el.className} ${el.innerText?.slice(0, 60)}`
      : "none";
  });

Deno.test({
  name: "console e2e: axe-core WCAG 2.1 A/AA, the keyboard path, phone and idle (390/1440 px)",
  ignore: skipBrowserTests("console a11y e2e"),
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  await ensureBundle();
  await using tmp = await tempDir("console-a11y-e2e-");
  const { s } = await evening(tmp.path);
  // An answer file thrown away: a `schedule_answer_rejected` event and a warning.
  await Deno.writeTextFile(`${tmp.path}/inbox/garbage.xml`, "no answer");
  await s.bridge.orchestrator.tick("replica-a");
  await using chromium = await launchChromium();
  try {
    for (const [width, height] of [[390, 844], [1440, 900]] as const) {
      await t.step(`${width} px: keyboard path, chart on today, texts, idle`, async () => {
        await using b = await chromium.newPage({ viewport: { width, height } });
        const page = b.page;
        const problems = await watchProblems(page);
        await page.clock.setFixedTime(new Date(EVENING));
        // Skip links are the first stops.
        await page.goto(`${s.url}/console`);
        await page.waitForSelector("html[data-ready=true]");
        await page.keyboard.press("Tab");
        assert.match(await focused(page), /^a#\.skip-link Skip to what needs attention/);
        // Enter the key: the focus goes to what needs attention.
        await enterKey(page, s.url);
        await page.locator(".attention-answer a").first().waitFor();
        await page.waitForFunction(() => document.activeElement?.id === "attention");
        // Today's row in one Tab and Enter, its version history in five more keys.
        let keys = 0;
        const press = async (k: string) => {
          keys++;
          await page.keyboard.press(k);
        };
        await press("Tab");
        assert.match(await focused(page), /^a#\.\s*Today/);
        await press("Enter");
        await page.waitForFunction(
          (day) => document.activeElement?.closest("tr")?.getAttribute("data-day") === day,
          TODAY,
        );
        await press("Tab");
        assert.match(await focused(page), /schedules and versions/);
        await press("Enter");
        await page.waitForFunction(() => document.activeElement?.id === "schedules");
        for (let i = 0; i < 3; i++) await press("Tab");
        assert.match(await focused(page), /^summary#\. Version history/);
        await press("Enter");
        await page.locator(".version-history[open] .versions-table tbody tr").first().waitFor();
        assert.ok(keys <= 8, `${keys} keys from the key to the version history`);

        // The chart opened on today (the day in intraday); the Input cell names the source once.
        assert.match(
          await page.locator(".chart-box h3").first().innerText(),
          /^Open position 2026-11-24/,
        );
        const input = await page.locator(`tr[data-day="${TODAY}"] td[data-label="Input"]`)
          .innerText();
        assert.doesNotMatch(input, /customer · customer/);
        assert.match(input, /\d+ market locations? · (generated|customer) forecast by \w+$/m);

        // The whole kind of a rejected answer file, nothing cut.
        const kind = page.locator(".ev .ev-kind", { hasText: "schedule_answer_rejected" }).first();
        await kind.scrollIntoViewIfNeeded();
        assert.ok(
          await kind.evaluate((el) => el.scrollWidth <= el.clientWidth + 1),
          "the Kind column shows the whole kind",
        );

        // The evening's horizon reaches a day the first pass did not (7 days ahead): the cron's
        // next tick would run it and its events arrive while the page idles. One pass now, and
        // the page shows its events, so a later tick finds nothing to do.
        const pass = await fetch(`${s.url}/v1/orchestrate?wait=true`, {
          method: "POST",
          headers: { "x-api-key": PROC },
        });
        assert.equal(pass.status, 200, await pass.text());
        // Until the stream's count has stood still for 0.7 s (the pass's events shown).
        const shown = () => page.locator(".stream .count").innerText();
        for (let last = await shown(), i = 0; i < 40; i++) {
          await page.waitForTimeout(700);
          const now = await shown();
          if (now === last) break;
          last = now;
        }
        // Nothing is drawn again while the page idles (three seconds of ticks). The window never
        // spans a minute boundary, where a shown text does change (the countdown's minutes, the
        // minute's pass): it starts at least 4 s before the next one.
        const mutations = await page.evaluate(async () => {
          const toNextMinute = 60_000 - (Date.now() % 60_000);
          if (toNextMinute < 4_000) await new Promise((r) => setTimeout(r, toNextMinute + 1_500));
          return await new Promise<string[]>((done) => {
            const n: string[] = [];
            const mo = new MutationObserver((list) => {
              for (const m of list) {
                const el = (m.target.nodeType === 1 ? m.target : m.target.parentElement) as Element;
                n.push(`${m.type} ${el?.tagName}.${el?.className} ${m.attributeName ?? ""}`);
              }
            });
            mo.observe(document.body, {
              subtree: true,
              childList: true,
              characterData: true,
              attributes: true,
            });
            setTimeout(() => (mo.disconnect(), done(n)), 3000);
          });
        });
        assert.deepEqual(mutations, [], "DOM changes while idle");

        if (width === 390) {
          // The header keeps its name on one line.
          const brand = await page.locator(".brand-name").boundingBox();
          assert.ok(brand && brand.height < 30, `brand ${JSON.stringify(brand)}`);
          // A tapped day opens its chart under its card, not thousands of px below.
          await page.evaluate(() => scrollTo(0, 0));
          const card = page.locator(`tr[data-day="${TOMORROW_OF(TODAY)}"]`);
          await card.locator("th button").first().click();
          await page.locator(".chart-box h3", { hasText: `Open position ${TOMORROW_OF(TODAY)}` })
            .waitFor();
          const gap = await page.evaluate((day) => {
            const row = document.querySelector(`tr[data-day="${day}"]`)!.getBoundingClientRect();
            const chart = document.querySelector(".chart-box")!.getBoundingClientRect();
            return chart.top - row.bottom;
          }, TOMORROW_OF(TODAY));
          assert.ok(gap >= -1 && gap < 60, `chart ${gap} px under the tapped card`);
        }

        // Start/stop: after confirming, the focus stays on the (new) button.
        await page.getByRole("button", { name: "Stop orchestrator…" }).click();
        await page.getByRole("button", { name: "Yes, stop scheduled runs" }).click();
        await page.getByRole("button", { name: "Start orchestrator…" }).waitFor();
        await page.waitForFunction(() =>
          document.activeElement?.getAttribute("data-confirm") === "orchestrator-toggle"
        );
        await page.getByRole("button", { name: "Start orchestrator…" }).click();
        await page.getByRole("button", { name: "Yes, start scheduled runs" }).click();
        await page.getByRole("button", { name: "Stop orchestrator…" }).waitFor();
        await page.waitForFunction(() =>
          document.activeElement?.textContent === "Stop orchestrator…"
        );

        // axe-core: no WCAG 2.1 A/AA violation, light and dark, with a version history open.
        for (const scheme of ["light", "dark"] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          assert.deepEqual(await axeViolations(page), [], `${width} px ${scheme}`);
        }
        assert.deepEqual(problems.console, [], "no console error");
        assert.deepEqual(problems.exceptions, []);
        assert.deepEqual(problems.csp, []);
      });
    }

    await t.step(
      "a refused key leaves no empty event box and no config list without values",
      async () => {
        await using b = await chromium.newPage({ viewport: { width: 390, height: 844 } });
        const page = b.page;
        await enterKey(page, s.url, "wrong-key-zzzzzzzz");
        await page.locator(".keygate .banner-error").waitFor();
        await page.getByText("The event history is refused").waitFor();
        assert.equal(await page.locator(".events").count(), 0);
        assert.equal(await page.locator(".fields").count(), 0);
        // The focus is back in the key field.
        await page.waitForFunction(() => document.activeElement?.id === "process-key");
        assert.deepEqual(await axeViolations(page), []);
      },
    );
  } finally {
    await s.close();
  }
});

/** `YYYY-MM-DD` plus one day. */
function TOMORROW_OF(day: string): string {
  const [y, m, d] = day.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}
