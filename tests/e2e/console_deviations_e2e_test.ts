/**
 * "Where the deviation came from" names every metered location (issue 36, item 8), in Chromium at
 * 1440 px (en-GB, light) and 390 px (de-DE, touch, dark), on the morning after of
 * tests/support/morning_after.ts: under an area's sources, "Per market location" lists each
 * metered location of the area with what it was forecast with, its forecast, actual and deviation
 * as the route says them, and saves every one as the route's CSV.
 */
import assert from "node:assert/strict";
import { ensureBundle } from "../../lib/console/bundle.ts";
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
import { AREAS } from "../support/portfolio.ts";

const ROUTE = `/v1/delivery-days/${YESTERDAY}/settlement/locations?control_area=${AREAS.amprion}`;

async function check(
  chromium: Chromium,
  m: MorningAfter,
  opts: Parameters<Chromium["newPage"]>[0],
  tap: boolean,
  name: string,
) {
  const api = await call(`${m.r.s.url}${ROUTE}`, { headers: proc });
  assert.equal(api.status, 200, JSON.stringify(api.body));
  const want = api.body as { total: number; locations: { malo_id: string }[] };
  assert.equal(want.total, 2, "the customer and the PV park, both metered");
  const csv = await (await fetch(`${m.r.s.url}${ROUTE}&format=csv`, { headers: proc })).text();
  const b = await chromium.newPage(opts);
  const problems = await watchProblems(b.page);
  const page = b.page;
  try {
    await openConsole(page, m.r.s.url, PROC, MORNING);
    const link = page.locator(".attention-yesterday").getByRole("link", { name: "Yesterday" });
    await (tap ? link.tap() : link.click());
    const area = page.locator("#days .after-delivery .settlement-area").first();
    await area.waitFor();
    const more = area.locator(".deviation-locations");
    const summary = more.locator("summary");
    assert.equal(plain(await summary.innerText()), "Per market location in Amprion");
    await (tap ? summary.tap() : summary.click());
    const rows = more.locator("tbody tr");
    await rows.nth(1).waitFor();
    assert.equal(await rows.count(), 2);
    assert.deepEqual(
      await rows.locator("th").allInnerTexts(),
      want.locations.map((l) => l.malo_id),
      "largest deviation first, as the route orders them",
    );
    assert.match(plain(await rows.first().innerText()), /customer forecasts/);
    assert.match(plain(await more.innerText()), /All 2 metered locations, largest deviation first/);
    await shotOf(more, `36-deviations-${name}`);
    const save = more.getByRole("button", { name: "Save all 2 as CSV" });
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      tap ? save.tap() : save.click(),
    ]);
    assert.equal(download.suggestedFilename(), `deviations_${YESTERDAY}_${AREAS.amprion}.csv`);
    assert.equal(await Deno.readTextFile(String(await download.path())), csv);
    assert.deepEqual(await axeViolations(page, ".deviation-locations"), []);
    assert.deepEqual([problems.csp, problems.exceptions], [[], []]);
  } finally {
    await b.close();
  }
}

Deno.test({
  name:
    "console e2e: every metered location in where the deviation came from, as CSV (390/1440 px)",
  ignore: skipBrowserTests("console deviations e2e"),
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  await ensureBundle();
  const m = await morningAfter();
  await using chromium = await launchChromium();
  try {
    await t.step(
      "1440 px, en-GB, light",
      () =>
        check(
          chromium,
          m,
          DESKTOP,
          false,
          "1440",
        ),
    );
    await t.step("390 px, de-DE, touch, dark", () =>
      check(
        chromium,
        m,
        PHONE,
        true,
        "390",
      ));
  } finally {
    await m.close();
  }
});
