/**
 * The console in a real browser, part 2: the delivery-day overview with stale markers,
 * countdown, chart and manual steps (pipeline answers stubbed with `page.route`, so the view is
 * tested apart from the pipeline); resuming the live stream after a network drop without gap
 * or duplicate; the fail-closed message; light and dark screenshots.
 *
 * Skipped with a printed reason when Chromium is missing, unless REQUIRE_E2E=1.
 */
import assert from "node:assert/strict";
import type { Page, Route } from "playwright-core";
import { ensureBundle } from "../../lib/console/bundle.ts";
import type { DayOverview, OpenPosition } from "../../lib/console/types.ts";
import { call, startServer } from "../support/app.ts";
import {
  type Chromium,
  launchChromium,
  shot,
  skipBrowserTests,
  watchProblems,
} from "../support/chromium.ts";
import { startTcpProxy } from "./tcp_proxy.ts";
import { PROC_2 as KEY } from "../support/keys.ts";

const env = { PROCESS_API_KEYS: `ops:${KEY}`, RATE_LIMIT_PER_MINUTE: "0" };
const H = 3_600_000;

function step(version: number, at: number, stale_reason: string | null = null) {
  return {
    version,
    at: new Date(at).toISOString(),
    by: "orchestrator",
    stale: stale_reason !== null,
    stale_reason,
    detail: {},
  };
}

const NO_FAILURES = { forecast: null, aggregated: null, published: null, submitted: null };

/** Three days: one submitted, one with stale steps before gate closure, one DST day. */
export function daysFixture(now: number): DayOverview[] {
  const day = (offset: number) => new Date(now + offset * 24 * H).toISOString().slice(0, 10);
  return [
    {
      delivery_day: day(0),
      quarter_hours: 96,
      gate_closure: new Date(now - 20 * H).toISOString(),
      gate_closure_passed: true,
      input_version: 3,
      last_input: {
        at: new Date(now - 26 * H).toISOString(),
        by: "acme",
        market_locations: 40,
        source: "customer",
      },
      steps: {
        forecast: step(3, now - 25 * H),
        aggregated: step(3, now - 24 * H),
        published: step(3, now - 23 * H),
        submitted: step(3, now - 22 * H),
      },
      totals: {},
      schedules: [],
      warnings: [],
      failures: NO_FAILURES,
    },
    {
      delivery_day: day(1),
      quarter_hours: 96,
      gate_closure: new Date(now + 3 * H + 12 * 60_000).toISOString(),
      gate_closure_passed: false,
      input_version: 5,
      last_input: {
        at: new Date(now - H).toISOString(),
        by: "acme",
        market_locations: 12,
        source: "customer",
      },
      steps: {
        forecast: step(5, now - 2 * H),
        aggregated: step(4, now - 3 * H, "newer forecast for 12 market locations at 10:41"),
        published: step(4, now - 3 * H, "newer forecast for 12 market locations at 10:41"),
        submitted: null,
      },
      totals: {},
      schedules: [],
      warnings: [],
      failures: NO_FAILURES,
    },
    {
      delivery_day: "2027-03-28",
      quarter_hours: 92,
      gate_closure: new Date(now + 40 * H).toISOString(),
      gate_closure_passed: false,
      input_version: 1,
      last_input: null,
      steps: {
        forecast: step(1, now - 0.5 * H),
        aggregated: null,
        published: null,
        submitted: null,
      },
      totals: {},
      schedules: [],
      warnings: [],
      failures: NO_FAILURES,
    },
  ];
}

/** An open position: four areas, 96 quarter-hours, consumption positive, one area negative. */
export function positionFixture(day: string): OpenPosition {
  const qh = Array.from({ length: 96 }, (_, i) => ({
    start: new Date(Date.parse(`${day}T00:00:00Z`) - 2 * H + i * 900_000).toISOString(),
    local: `${String(Math.floor(i / 4)).padStart(2, "0")}:${String((i % 4) * 15).padStart(2, "0")}`,
    local_iso: "",
  }));
  const wave = (amp: number, base: number, phase: number) =>
    qh.map((_, i) => Math.round((base + amp * Math.sin((i / 96) * 2 * Math.PI + phase)) * 10) / 10);
  return {
    delivery_day: day,
    version: 4,
    stale: false,
    computed_at: "2025-06-01T10:00:00.000Z",
    unit: "MW",
    quarter_hours: qh,
    areas: {
      "10YDE-RWENET---I": wave(18, 42, 0),
      "10YDE-EON------1": wave(12, 25, 1),
      "10YDE-ENBW-----N": wave(9, 14, 2),
      "10YDE-VE-------2": wave(14, -6, 3),
    },
  };
}

const json = (route: Route, status: number, body: unknown) =>
  route.fulfill({ status, contentType: "application/json", body: JSON.stringify(body) });

async function enterKey(page: Page, key: string) {
  await page.waitForSelector("html[data-ready=true]");
  await page.fill("#process-key", key);
  await page.press("#process-key", "Enter");
}

/** Delivery days, chart, manual steps, stream resume, dark scheme. */
async function daysAndChart(t: Deno.TestContext, chromium: Chromium) {
  const s = await startServer(env);
  const proxy = startTcpProxy(s.url);
  const b = await chromium.newPage();
  const page = b.page;
  const problems = await watchProblems(page);
  const now = Date.now();
  const days = daysFixture(now);
  const posted: string[] = [];
  try {
    await page.route("**/v1/console/delivery-days", (r) => json(r, 200, { delivery_days: days }));
    await page.route("**/v1/delivery-days/*/open-position", (r) => {
      const day = new URL(r.request().url()).pathname.split("/")[3];
      return day === "2027-03-28"
        ? json(r, 404, { detail: `No open position for ${day} yet.` })
        : json(r, 200, positionFixture(day));
    });
    await page.route(/\/v1\/(delivery-days\/[^/]+\/(aggregate|submit)|orchestrate)$/, (r) => {
      posted.push(new URL(r.request().url()).pathname);
      const url = r.request().url();
      if (url.endsWith("/submit")) {
        return json(r, 409, {
          detail: "Gate closure for this day has passed; nothing was submitted.",
        });
      }
      // A manual pass answers what it ran per day and step.
      return url.endsWith("/orchestrate")
        ? json(r, 200, {
          started_at: new Date(now).toISOString(),
          days: [
            { delivery_day: days[1].delivery_day, ran: ["aggregate", "publish"] },
            {
              delivery_day: days[2].delivery_day,
              ran: [],
              failed: { step: "publish", error: "sFTP 127.0.0.1:22 refused the connection" },
            },
          ],
        })
        : json(r, 200, { ok: true });
    });

    await t.step(
      "overview: steps, stale reason, countdown, chart of the selected day",
      async () => {
        await page.goto(`${proxy.url}/console`);
        await enterKey(page, KEY);
        const row = page.locator(`tr[data-day="${days[1].delivery_day}"]`);
        await row.waitFor();
        await row.getByText("newer forecast for 12 market locations at 10:41").first().waitFor();
        assert.equal(await row.locator(".badge", { hasText: "stale" }).count(), 2);
        // The gate closure's clock time in Berlin beside the countdown.
        assert.match(
          await row.locator(".countdown").innerText(),
          /^\d{2}:\d{2} Berlin · in 3 h 1[12] min$/,
        );
        assert.match(
          await page.locator(`tr[data-day="${days[0].delivery_day}"] .countdown`).innerText(),
          /^\d{2}:\d{2} Berlin · passed/,
        );
        assert.equal(await page.locator('tr[data-day="2027-03-28"] .badge').innerText(), "92 QH");
        // The first day whose gate closure is ahead is selected and charted.
        assert.equal(await row.locator("button[aria-pressed=true]").count(), 1);
        await page.locator("svg.chart-svg polyline.series").nth(3).waitFor();
        assert.equal(await page.locator("svg.chart-svg polyline.series").count(), 4);
        assert.equal(await page.locator(".legend li").count(), 4);
        await shot(page, "10-days-light");
      },
    );

    await t.step("keyboard: select another day; a day without aggregate says so", async () => {
      await page.locator('tr[data-day="2027-03-28"] button.linklike').focus();
      await page.keyboard.press("Enter");
      await page.getByText("Not aggregated yet for this day.").waitFor();
      await page.locator(`tr[data-day="${days[0].delivery_day}"] button.linklike`).focus();
      await page.keyboard.press("Space");
      await page.locator("svg.chart-svg polyline.series").first().waitFor();
    });

    await t.step("manual steps: buttons from the OpenAPI paths; results shown", async () => {
      const d = days[1].delivery_day;
      await page.getByRole("button", { name: `Aggregate ${d}` }).click();
      await page.getByText(`Aggregate ${d}: done.`).waitFor();
      assert.ok(posted.includes(`/v1/delivery-days/${d}/aggregate`));
      await page.getByRole("button", { name: `Submit ${d}` }).click();
      await page.getByRole("button", { name: `Yes, submit ${d}` }).click();
      await page.getByText("refused (409) Gate closure for this day has passed").waitFor();
      assert.ok(
        await page.getByRole("button", { name: `Submit ${days[0].delivery_day}` }).isDisabled(),
      );
      await page.getByRole("button", { name: "Run orchestrator now…" }).click();
      await page.getByRole("button", { name: "Yes, run it now" }).click();
      await page.getByText(
        `Orchestrate: ${days[1].delivery_day}: aggregate, publish · ${
          days[2].delivery_day
        }: publish failed: sFTP 127.0.0.1:22 refused the connection`,
      ).waitFor();
    });

    await t.step("dark scheme", async () => {
      await page.emulateMedia({ colorScheme: "dark" });
      const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.equal(bg, "rgba(0, 0, 0, 0)"); // the page background is on <html>
      const html = await page.evaluate(() =>
        getComputedStyle(document.documentElement).backgroundColor
      );
      assert.equal(html, "rgb(15, 18, 22)");
      await shot(page, "11-days-dark");
      await page.emulateMedia({ colorScheme: "light" });
    });

    await t.step(
      "a network drop: new token, resume with after_id, no gap, no duplicate",
      async () => {
        const streams: string[] = [];
        let tokens = 0;
        page.on("request", (r) => {
          if (r.url().includes("/v1/console/events/stream")) streams.push(r.url());
          if (r.url().endsWith("/v1/console/stream-token")) tokens++;
        });
        await call(`${s.url}/v1/console/start`, { method: "POST", headers: { "x-api-key": KEY } });
        await page.locator(".conn-live").waitFor();
        await page.locator('.ev[data-kind="orchestrator_started"]').waitFor({ timeout: 2000 });
        const before = Number(await page.locator(".ev").last().getAttribute("data-id"));
        proxy.cut();
        await page.locator(".conn-reconnecting").waitFor({ timeout: 5000 });
        for (let i = 0; i < 3; i++) {
          const r = await call(`${s.url}/v1/console/config`, {
            method: "PUT",
            headers: { "x-api-key": KEY, "content-type": "application/json" },
            body: JSON.stringify({ sftp_port: 4000 + i }),
          });
          assert.equal(r.status, 200);
        }
        await new Promise((r) => setTimeout(r, 500));
        proxy.restore();
        await page.locator(".conn-live").waitFor({ timeout: 15_000 });
        await page.waitForFunction((n) => document.querySelectorAll(".ev").length >= n, before + 6);
        const ids = await page.locator(".ev").evaluateAll((els) =>
          els.map((e) => Number(e.getAttribute("data-id")))
        );
        assert.deepEqual(ids, Array.from({ length: ids.length }, (_, i) => i + 1));
        const resumed = streams.map((u) => new URL(u).searchParams);
        assert.ok(resumed.length >= 1, "the stream was reopened");
        assert.equal(resumed[0].get("after_id"), String(before));
        assert.ok(tokens >= resumed.length, "a fresh stream token for every reconnect");
        assert.ok(resumed.every((q) => q.get("token")), "every reconnect carries a token");
      },
    );

    assert.deepEqual(problems.csp, []);
    assert.deepEqual(problems.exceptions, []);
  } finally {
    await b.close();
    await proxy.close();
    await s.close();
  }
}

/** A fail-closed service shows its 503 sentence. */
async function failClosed(chromium: Chromium) {
  const s = await startServer({});
  const b = await chromium.newPage({ viewport: { width: 1280, height: 720 } });
  const problems = await watchProblems(b.page);
  try {
    const detail = (await call(`${s.url}/v1/console/status`, { headers: { "x-api-key": "x" } }))
      .body as { detail: string };
    await b.page.goto(`${s.url}/console`);
    await enterKey(b.page, "any-key-at-all-0000");
    const alert = b.page.getByRole("alert").filter({ hasText: "fail-closed" });
    await alert.waitFor();
    assert.ok((await alert.innerText()).includes(detail.detail), await alert.innerText());
    await b.page.locator(".conn-refused").waitFor();
    await shot(b.page, "12-fail-closed");
    assert.deepEqual(problems.csp, []);
    assert.deepEqual(problems.exceptions, []);
  } finally {
    await b.close();
    await s.close();
  }
}

// One Chromium for both: each test has its own app and browser context.
Deno.test({
  name: "console e2e: delivery days, chart, manual steps, stream resume, fail-closed, dark",
  ignore: skipBrowserTests("console days e2e"),
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  await ensureBundle();
  await using chromium = await launchChromium();
  await t.step(
    "delivery days, chart, manual steps, stream resume, dark",
    (t) => daysAndChart(t, chromium),
  );
  await t.step("fail-closed service shows its 503 sentence", () => failClosed(chromium));
});
