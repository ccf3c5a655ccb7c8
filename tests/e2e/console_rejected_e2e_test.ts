/**
 * A file thrown away says so where the operator looks (docs/console_attention.md; issue 28), at
 * 390 and 1440 px: an answer file the cron's pass moved to `rejected/` is an amber attention item
 * naming the file and the reason, on the first screen; the pass list counts it; "Import answers"
 * (the inbox empty by then) counts it instead of saying the inbox is empty; "Seen" acknowledges
 * it and the item goes.
 *
 * Real parts: the app on 127.0.0.1 with a temp-file KV and a fake clock (the page's clock is set
 * to the same instant), the inbox on disk, Chromium. Skipped with a printed reason when Chromium
 * is missing, unless REQUIRE_E2E=1.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { ensureBundle } from "../../lib/console/bundle.ts";
import { call, startServer } from "../support/app.ts";
import { launchChromium, shot, skipBrowserTests, watchProblems } from "../support/chromium.ts";
import { EXT, PROC, proc } from "../support/day_ahead_rig.ts";
import { tempDir } from "../support/temp.ts";

const NOW = Date.parse("2026-11-24T18:32:00Z"); // Tue 19:32 Berlin

Deno.test({
  name: "console e2e: a rejected answer file is an attention item until seen (390/1440 px)",
  ignore: skipBrowserTests("console rejected e2e"),
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  await ensureBundle();
  await using tmp = await tempDir("console-rejected-e2e-");
  const inbox = `${tmp.path}/inbox`;
  await Deno.mkdir(inbox);
  const clock = new FakeClock(NOW);
  const s = await startServer({
    PROCESS_API_KEYS: `ops:${PROC}`,
    EXTERNAL_API_KEYS: `acme:${EXT}`,
    RATE_LIMIT_PER_MINUTE: "0",
    OUTBOX_DIR: `${tmp.path}/outbox`,
    SCHEDULE_INBOX_DIR: inbox,
  }, { clock });
  await using chromium = await launchChromium();
  try {
    await call(`${s.url}/v1/console/start`, { method: "POST", headers: proc });
    for (const [width, height] of [[390, 844], [1440, 900]] as const) {
      await t.step(`${width} px`, async () => {
        const file = `garbage-${width}.xml`;
        await Deno.writeTextFile(`${inbox}/${file}`, "no answer at all");
        clock.advance(60_000); // a minute of its own: its lease is free
        const tick = await s.bridge.orchestrator.tick("replica-a");
        assert.ok(tick.ran && tick.report.rejected_files?.length === 1, JSON.stringify(tick));
        clock.advance(1000);
        await using b = await chromium.newPage({ viewport: { width, height } });
        const page = b.page;
        const problems = await watchProblems(page);
        await page.clock.setFixedTime(new Date(clock.now()));
        await page.goto(`${s.url}/console`);
        await page.waitForSelector("html[data-ready=true]");
        await page.fill("#process-key", PROC);
        await page.press("#process-key", "Enter");
        const item = page.locator(`.attention li[data-code="rejected_answer"]`, {
          hasText: file,
        });
        await item.waitFor();
        assert.match(
          await item.innerText(),
          new RegExp(
            `^!\\nThe answer file ${file} in the inbox ${inbox} was not imported at 19:3\\d Berlin: Not a TSO answer: .+; moved to rejected/\\. Ask the TSO that sent it to resend its answer; then press Seen\\.\\s*Seen$`,
          ),
        );
        const box = await item.boundingBox();
        assert.ok(
          box && box.y + box.height <= height,
          `on the first screen: ${JSON.stringify(box)}`,
        );
        // The status bar's last pass and the pass list count it.
        assert.match(
          await page.locator(".pill-note").innerText(),
          /nothing to do, 0 steps run, 0 failed, 1 file rejected/,
        );
        const pass = page.locator(".pass").first();
        await pass.waitFor();
        assert.match(
          await pass.locator("summary").innerText(),
          /no step to run.*, 1 file rejected$/,
        );
        // "Import answers": the inbox is empty now, and the file still counts.
        await page.getByRole("button", { name: "Import answers" }).click();
        const note = page.getByText(/^Import answers: nothing new in the inbox/);
        await note.waitFor();
        assert.match(
          await note.innerText(),
          new RegExp(
            `· 1 file rejected earlier: ${file} \\(Not a TSO answer: .+\\), see Attention\\.$`,
          ),
        );
        await shot(page, `26-rejected-file-${width}`);
        // Seen: acknowledged, the item goes (the list is read again after the live event).
        await item.getByRole("button", { name: `Acknowledge the rejected file ${file}` }).click();
        clock.advance(1000);
        await item.waitFor({ state: "detached" });
        assert.deepEqual(problems.exceptions, []);
        assert.deepEqual(problems.csp, []);
      });
    }
  } finally {
    await s.close();
  }
});
