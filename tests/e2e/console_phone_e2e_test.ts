/**
 * The console on a phone, a tablet and a laptop (issue 20, item 6): Chromium at 390, 1024 and
 * 1440 px, light and dark. Measured in the DOM: the chart's labels are at least 11 px as
 * rendered (font size × the SVG's scale), a tap on the chart and the arrow keys show a
 * quarter-hour's values in a visible readout, tapping a day brings its chart into view, every
 * visible button, link and input is a target of at least 24 × 24 px (WCAG 2.2, SC 2.5.8; a
 * checkbox counts with its label, which toggles it), nothing is wider than a 390 px viewport
 * (key gate included), and the day table's buttons are not cut at 1024 px. The schedules name
 * the TSO beside its EIC and label the aggregate and schedule versions.
 * Screenshots under `tests/e2e/screenshots/` (`20-*`).
 *
 * Real parts: the app on a temp-file KV over HTTP on 127.0.0.1, schedules written as ESS files
 * to the local outbox, real market locations and forecasts, Debian's Chromium.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { ensureBundle } from "../../lib/console/bundle.ts";
import { addDays, nextOpenDay, quarterHourCount } from "../../lib/domain/delivery_day.ts";
import { call, startServer } from "../support/app.ts";
import {
  type Browser,
  freshStart,
  launchChromium,
  shotOf,
  skipBrowserTests,
} from "../support/chromium.ts";
import { FILES_CHANNEL_ENV } from "../support/fahrplan.ts";
import { EXT, postForecast, PROC, proc, putLocation } from "../support/day_ahead_rig.ts";
import { AREAS } from "../support/portfolio.ts";
import { tempDir } from "../support/temp.ts";

/** Rendered size of every text of the chart: computed font size × the SVG's scale. */
function chartLabelSizes(page: Page) {
  return page.locator(".chart-svg").first().evaluate((svg) => {
    const s = svg as SVGSVGElement;
    const scale = s.getBoundingClientRect().width / s.viewBox.baseVal.width;
    return [...s.querySelectorAll("text")].map((t) => ({
      text: t.textContent ?? "",
      px: parseFloat(getComputedStyle(t).fontSize) * scale,
    }));
  });
}

/**
 * Visible interactive elements smaller than 24 × 24 px. A checkbox or radio inside a label
 * counts with the label (a tap on the label toggles it).
 */
function smallTargets(page: Page) {
  return page.evaluate(() => {
    const out: string[] = [];
    const els = document.querySelectorAll<HTMLElement>(
      "button, a[href], input, select, textarea, [role=button], [tabindex='0']",
    );
    for (const el of els) {
      if (el instanceof HTMLInputElement && el.type === "hidden") continue;
      const style = getComputedStyle(el);
      if (style.visibility === "hidden" || style.display === "none") continue;
      let target: Element = el;
      if (el instanceof HTMLInputElement && /^(checkbox|radio)$/.test(el.type)) {
        target = el.closest("label") ?? el;
      }
      const r = target.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (r.width < 24 - 0.01 || r.height < 24 - 0.01) {
        const name = (el.getAttribute("aria-label") ?? el.textContent ?? "").trim().slice(0, 30);
        out.push(`${el.tagName.toLowerCase()}.${el.className} "${name}" ${r.width}×${r.height}`);
      }
    }
    return out;
  });
}

/** Elements wider than the viewport or reaching past its right edge. */
function overflowing(page: Page) {
  return page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const out: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>("body *")) {
      const r = el.getBoundingClientRect();
      if (r.width > vw + 1 || r.right > vw + 1) {
        out.push(`${el.tagName.toLowerCase()}.${el.className} ${Math.round(r.width)}px`);
      }
    }
    return { vw, scroll: document.documentElement.scrollWidth, out: out.slice(0, 8) };
  });
}

/** Buttons of the day table that are cut by the table's box or the viewport. */
function cutTableButtons(page: Page) {
  return page.evaluate(() => {
    const wrap = document.querySelector("#days .table-wrap") as HTMLElement;
    const box = wrap.getBoundingClientRect();
    const vw = document.documentElement.clientWidth;
    const out: string[] = [];
    for (const b of wrap.querySelectorAll("button")) {
      const r = b.getBoundingClientRect();
      if (r.right > Math.min(box.right, vw) + 0.5 || r.left < box.left - 0.5) {
        out.push(`${b.textContent} ${Math.round(r.left)}–${Math.round(r.right)}`);
      }
    }
    return { out, scrolls: wrap.scrollWidth > wrap.clientWidth + 1 };
  });
}

Deno.test({
  name: "console e2e: phone, tablet, laptop — chart readout, tap targets, fit, TSO names",
  ignore: skipBrowserTests("console phone e2e"),
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  await ensureBundle();
  await using tmp = await tempDir("console-phone-e2e-");
  const s = await startServer({
    PROCESS_API_KEYS: `ops:${PROC}`,
    EXTERNAL_API_KEYS: `acme:${EXT}`,
    RATE_LIMIT_PER_MINUTE: "0",
    OUTBOX_DIR: `${tmp.path}/outbox`,
    ...FILES_CHANNEL_ENV,
  });
  const first = addDays(nextOpenDay(Date.now()), 1);
  const second = addDays(first, 1);
  // One browser; one context with touch (phone, tablet) and one without (laptop). A step sets
  // its width and scheme and loads the console afresh, its key forgotten.
  const chromium = await launchChromium();
  const contexts = new Map<boolean, Browser>();
  const pageFor = async (hasTouch: boolean) => {
    if (!contexts.has(hasTouch)) contexts.set(hasTouch, await chromium.newPage({ hasTouch }));
    return contexts.get(hasTouch)!.page;
  };
  try {
    for (
      const [n, area, direction] of [
        [1, AREAS.amprion, "consumption"],
        [2, AREAS.tennet, "consumption"],
        [3, AREAS.amprion, "generation"],
      ] as const
    ) {
      await putLocation(s, n, { control_area: area, direction, name: `location ${n}` });
    }
    for (const day of [first, second]) {
      const qh = quarterHourCount(day);
      await postForecast(s, 1, day, Array.from({ length: qh }, (_, i) => 1_000 + 10 * i));
      await postForecast(s, 2, day, Array(qh).fill(800));
    }
    await postForecast(s, 3, first, Array(quarterHourCount(first)).fill(500));
    // A pass aggregates, publishes and submits both days: one ESS file per control area.
    const pass = await call(`${s.url}/v1/orchestrate`, { method: "POST", headers: proc });
    assert.equal(pass.status, 200, JSON.stringify(pass.body));
    const ran = JSON.stringify(pass.body);
    assert.ok(ran.includes(`"delivery_day":"${second}"`) && !ran.includes("failed"), ran);

    for (const [width, height] of [[390, 844], [1024, 768], [1440, 900]] as const) {
      for (const scheme of ["light", "dark"] as const) {
        await t.step(`${width} px, ${scheme}`, async () => {
          const page = await pageFor(width < 1440);
          await page.setViewportSize({ width, height });
          await page.emulateMedia({ colorScheme: scheme });
          await freshStart(page, `${s.url}/console`);
          await page.waitForSelector("html[data-ready=true]");
          // The key gate fits before the key is entered.
          const gate = await overflowing(page);
          await page.fill("#process-key", PROC);
          await page.press("#process-key", "Enter");
          // The first day's chart and schedules (the default day has no forecasts).
          const firstDay = page.locator(`tr[data-day="${first}"] th button`).first();
          if (width < 1440) await firstDay.tap();
          else await firstDay.click();
          await page.locator(".chart-box > h3", { hasText: `Open position ${first}` }).waitFor();
          await page.locator(`.schedules li`).first().waitFor();
          await page.locator(".chart-svg").first().waitFor();
          await page.locator(".ev .ev-msg").first().waitFor();
          // Evidence: the top of the page, the day table and the chart (no full-page shot: it
          // costs more CPU than the three together and shows nothing they do not).
          await page.evaluate(() => globalThis.scrollTo(0, 0));
          await shotOf(page, `20-top-${width}-${scheme}`);
          await shotOf(
            page.locator("#days .table-wrap").first(),
            `20-day-table-${width}-${scheme}`,
          );
          const box = page.locator(".chart-box");
          await shotOf(box, `20-day-chart-${width}-${scheme}`);
          assert.deepEqual(gate.out, [], `key gate wider than ${gate.vw} px`);

          // Chart labels at least 11 px as rendered.
          const sizes = await chartLabelSizes(page);
          assert.ok(sizes.length > 5, JSON.stringify(sizes));
          const smallest = Math.min(...sizes.map((l) => l.px));
          console.log(`${width} px ${scheme}: smallest chart label ${smallest.toFixed(2)} px`);
          const small = sizes.filter((l) => l.px < 11 - 0.01);
          assert.deepEqual(small, [], `chart labels under 11 px at ${width} px`);

          // A tap on the chart shows that quarter-hour's values; arrow keys move it.
          const svg = page.locator(".chart-svg").first();
          const r = (await svg.boundingBox())!;
          const at = { x: r.width * 0.5, y: r.height * 0.5 };
          if (width < 1440) await svg.tap({ position: at });
          else await svg.click({ position: at });
          const readout = page.locator(".chart-readout");
          assert.ok(await readout.isVisible(), "no readout after a tap");
          const text1 = await readout.innerText();
          assert.match(text1, /\d{2}:\d{2}–\d{2}:\d{2}/, text1);
          assert.match(text1, /10YDE-RWENET---I[^]*Amprion[^]*-?[\d,.]+\sMW/, text1);
          assert.match(text1, /10YDE-EON------1[^]*TenneT TSO[^]*MW[^]*total/, text1);
          await page.locator(".chart-plot").first().focus();
          await page.keyboard.press("ArrowRight");
          const text2 = await readout.innerText();
          assert.notEqual(text2, text1, "ArrowRight did not move the readout");
          await page.keyboard.press("Home");
          assert.match(await readout.innerText(), /^00:00–00:15/);
          if (width === 390) {
            await shotOf(box, `20-day-chart-readout-390-${scheme}`);
          }

          // Schedules: TSO names beside EICs, versions labelled.
          const sched = await page.locator(".schedules").innerText();
          assert.match(sched, /Amprion/);
          assert.match(sched, /10XDE-RWENET---W/);
          assert.match(sched, /TenneT TSO/);
          assert.match(sched, /schedule v1/);
          assert.match(sched, /aggregate v\d/);
          // Missing forecasts counted in words.
          const firstRow = await page.locator(`tr[data-day="${first}"] th`).innerText();
          assert.doesNotMatch(firstRow, /without forecast/);
          assert.match(
            await page.locator(`tr[data-day="${second}"] th`).innerText(),
            /1 of 3 market locations without forecast/,
          );

          // Tap targets, also with a submit confirmation open.
          const tiny = await smallTargets(page);
          assert.deepEqual(tiny, [], `targets under 24 × 24 px at ${width} px`);
          await page.getByRole("button", { name: `Submit ${first}` }).click();
          await page.getByRole("button", { name: `Yes, submit ${first}` }).waitFor();
          assert.deepEqual(await smallTargets(page), [], `confirmation targets at ${width} px`);
          await page.getByRole("button", { name: "Cancel" }).first().click();

          // The ESS and the CIM document of one schedule download under distinct names.
          if (width === 1440) {
            const names: string[] = [];
            for (const format of ["ESS", "CIM"]) {
              const [dl] = await Promise.all([
                page.waitForEvent("download"),
                page.getByRole("button", { name: `${format} document ${AREAS.amprion}` })
                  .click(),
              ]);
              names.push(dl.suggestedFilename());
            }
            assert.match(names[0], /_10XDE-RWENET---W_\d{3}_ESS\.xml$/, names[0]);
            assert.equal(names[1], names[0].replace(/_ESS\.xml$/, "_CIM.xml"));
          }

          if (width === 390) {
            const o = await overflowing(page);
            assert.ok(o.scroll <= o.vw + 1, `page scrolls sideways: ${JSON.stringify(o)}`);
            assert.deepEqual(o.out, [], `wider than ${o.vw} px`);
          } else {
            const cut = await cutTableButtons(page);
            assert.deepEqual(cut.out, [], `day table buttons cut at ${width} px`);
            assert.ok(!cut.scrolls, `day table scrolls sideways at ${width} px`);
          }

          // Tapping a day brings its chart into view.
          await page.evaluate(() => globalThis.scrollTo(0, 0));
          const other = page.locator(`tr[data-day="${second}"] th button`).first();
          if (width < 1440) await other.tap();
          else await other.click();
          await page.locator(".chart-box > h3", { hasText: `Open position ${second}` }).waitFor();
          await page.waitForFunction(
            () => {
              const el = document.querySelector(".chart-box");
              if (!el) return false;
              const rr = el.getBoundingClientRect();
              return rr.top >= -1 &&
                rr.top + Math.min(rr.height, 320) <= globalThis.innerHeight + 1;
            },
            undefined,
            { timeout: 5_000 },
          );
        });
      }
    }
  } finally {
    await chromium.close();
    await s.close();
  }
});
