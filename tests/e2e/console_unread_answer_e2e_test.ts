/**
 * An answer about tomorrow that cannot be read is no green (docs/console_attention.md, "A file thrown away";
 * issue 36, item 9), at 1440 px (light) and 390 px (touch, dark): on a healthy evening
 * (tests/support/evening.ts: today and tomorrow confirmed in all four areas) an answer file for
 * tomorrow that is not well-formed XML goes to rejected/; then the box's answer says tomorrow's
 * answer could not be read, in amber, tomorrow's row turns amber and says what to do, the item
 * names the day as "tomorrow" and says what to do, and the day's schedules offer a status request
 * in every area. Until seen — "Seen" by the keyboard, the focus staying in the box — or superseded
 * by a later answer for the day (imported, then "Import answers"): then the box and the row are
 * green again. axe-core finds no WCAG 2.1 A/AA violation in the box and the row; no CSP violation,
 * no exception.
 *
 * Real parts: the app on 127.0.0.1 with a temp-file KV and a fake clock (the page's clock set to
 * the same instant), the inbox on disk, Chromium. Skipped with a printed reason when Chromium is
 * missing, unless REQUIRE_E2E=1.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { ensureBundle } from "../../lib/console/bundle.ts";
import { axeViolations } from "../support/axe.ts";
import {
  launchChromium,
  openConsole,
  shotOf,
  skipBrowserTests,
  watchProblems,
} from "../support/chromium.ts";
import { PROC } from "../support/day_ahead_rig.ts";
import { evening, TOMORROW } from "../support/evening.ts";
import { tempDir } from "../support/temp.ts";
import { cnfFile, importAnswers, TSO } from "../support/tso_answers.ts";

const plain = (s: string) => s.replace(/\u00a0/g, " ").replace(/\s+/g, " ").trim();

/** The colour a CSS variable of the page's theme resolves to, as computed styles write it. */
function themeColor(page: Page, name: string): Promise<string> {
  return page.evaluate((name) => {
    const probe = document.createElement("span");
    probe.style.color = `var(${name})`;
    document.body.append(probe);
    const c = getComputedStyle(probe).color;
    probe.remove();
    return c;
  }, name);
}

Deno.test({
  name:
    "console e2e: an unreadable answer about tomorrow turns tomorrow amber until seen or superseded (390/1440 px)",
  ignore: skipBrowserTests("console unread answer e2e"),
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  await ensureBundle();
  await using tmp = await tempDir("console-unread-e2e-");
  const { s, clock } = await evening(tmp.path);
  const inbox = `${tmp.path}/inbox`;
  const imported = async () => {
    const body = await importAnswers(s.url);
    clock.advance(1000); // the attention list is computed at most once a second
    return body;
  };
  await using chromium = await launchChromium();
  try {
    for (
      const [width, height, scheme] of [[1440, 900, "light"], [390, 844, "dark"]] as const
    ) {
      await t.step(`${width} px, ${scheme}`, async () => {
        const file = `${TOMORROW.replaceAll("-", "")}_TPS_${TSO.amprion}_broken-${width}.xml`;
        await Deno.writeTextFile(`${inbox}/${file}`, "<ConfirmationReport><Reason");
        const imp = await imported();
        assert.deepEqual(imp.files.map((f) => f.outcome), ["rejected"]);

        await using b = await chromium.newPage({
          viewport: { width, height },
          colorScheme: scheme,
          hasTouch: width < 600,
        });
        const page = b.page;
        const problems = await watchProblems(page);
        await openConsole(page, s.url, PROC, clock.now());

        // The box: no green about tomorrow, said in words and in amber.
        const answer = page.locator(".attention-answer");
        await answer.waitFor();
        assert.equal(
          plain(await answer.innerText()),
          "Today: confirmed · tomorrow: an answer could not be read.",
        );
        const unread = answer.locator('[data-answer="unread"]');
        assert.equal(
          await unread.evaluate((el) => getComputedStyle(el).color),
          await themeColor(page, "--warn"),
        );
        const item = page.locator('.attention li[data-code="rejected_answer"]', { hasText: file });
        const itemText = plain(await item.innerText());
        assert.match(
          itemText,
          new RegExp(`The answer file ${file} about tomorrow \\(Wed 25 Nov\\) in the inbox `),
        );
        assert.match(
          itemText,
          /moved to rejected\/\. Ask the TSO to resend its answer, or send a status request from tomorrow's schedules; then press Seen\. Seen$/,
        );
        // Tomorrow's row: amber, and what to do.
        const row = page.locator(`tr[data-day="${TOMORROW}"]`);
        assert.equal(await row.getAttribute("data-tso"), "warn");
        assert.match(
          plain(await row.locator(".unread-answer").innerText()),
          new RegExp(
            `^answer file ${file} could not be read — ask the TSO to resend, or send a status request`,
          ),
        );
        // Its schedules offer a status request in every area, though each stands confirmed.
        const day = row.locator("button").first();
        await (width < 600 ? day.tap() : day.click());
        const srq = page.locator("#days .schedules").getByRole("button", {
          name: /^Request status/,
        });
        await page.locator("#days .schedules").waitFor();
        assert.equal(await srq.count(), 4);
        assert.deepEqual(
          await axeViolations(page, ["#attention", `tr[data-day="${TOMORROW}"]`]),
          [],
        );
        await shotOf(page.locator("#attention"), `36-unread-answer-${width}-${scheme}`);

        if (width > 600) {
          // Seen, by the keyboard: the item goes, the focus stays in the box.
          const seen = item.getByRole("button", {
            name: `Seen: acknowledge the rejected file ${file}`,
          });
          await seen.focus();
          await page.keyboard.press("Enter");
          clock.advance(1000);
          await item.waitFor({ state: "detached" });
          const focus = await page.evaluate(() => ({
            body: document.activeElement === document.body,
            inBox: !!document.activeElement?.closest("#attention"),
            text: document.activeElement?.textContent?.slice(0, 40),
          }));
          assert.ok(!focus.body && focus.inBox, JSON.stringify(focus));
        } else {
          // Superseded: a later answer for the day arrives; "Import answers" reads the list again.
          await Deno.writeTextFile(`${inbox}/later.xml`, cnfFile(TOMORROW, TSO.amprion, 1));
          assert.deepEqual((await imported()).files.map((f) => f.outcome), ["imported"]);
          await page.getByRole("button", { name: "Import answers" }).tap();
          await item.waitFor({ state: "detached" });
        }
        await page.waitForFunction(
          (day) =>
            document.querySelector(`tr[data-day="${day}"]`)?.getAttribute("data-tso") === "ok",
          TOMORROW,
        );
        assert.equal(
          plain(await answer.innerText()),
          "Today and tomorrow: every schedule confirmed.",
        );
        assert.equal(await row.locator(".unread-answer").count(), 0);
        assert.deepEqual(problems.exceptions, []);
        assert.deepEqual(problems.csp, []);
      });
    }
  } finally {
    await s.close();
  }
});
