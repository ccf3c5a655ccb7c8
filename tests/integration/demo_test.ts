/**
 * The demo as a test: start it, wait for the next open day to be handed over to the TSOs as ESS
 * documents and confirmed by the TSO simulator ("4 of 4 confirmed"), and check that the outbox
 * CSV, the documents and the aggregate agree; then today's PV forecasts are updated and the last
 * line tells today's intraday version ("today: v2 sent 20:13, frozen before 20:30 Berlin, 4 of 4
 * confirmed"), which the version history confirms. Runs `dev/demo.ts` as its own process.
 */
import assert from "node:assert/strict";
import { XMLParser } from "fast-xml-parser";
import { tempDir } from "../support/temp.ts";

Deno.test("demo: next open day handed over to the TSOs and confirmed 4 of 4; CSV, documents and aggregate agree", async () => {
  await using dataDirTmp = await tempDir("bridge-demo-");
  const dataDir = dataDirTmp.path;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net", "--allow-env", "--allow-read", "--allow-write", "dev/demo.ts"],
    env: { PORT: "0", DEMO_DATA_DIR: dataDir, DEMO_LOCATIONS: "200" },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let summary: Record<string, unknown> | undefined;
  const deadline = Date.now() + 60_000;
  try {
    while (!summary && Date.now() < deadline) {
      const { value, done } = await lines.read();
      if (done) break;
      text += value;
      const m = /DEMO_SUMMARY (.*)\n/.exec(text);
      if (m) summary = JSON.parse(m[1]);
    }
    assert.ok(summary, `no summary within 60 s:\n${text}`);
    const s = summary as {
      delivery_day: string;
      console: string;
      external_key: string;
      csv: string;
      aggregate_version: number;
      submitted: {
        version: number;
        documents: { control_area: string; file: string; location: string }[];
      } | null;
      confirmed: string;
    };
    assert.ok(s.submitted, "the day was not submitted");
    assert.equal(s.submitted.version, s.aggregate_version);
    const base = s.console.replace(/\/console$/, "");
    const agg = await (await fetch(`${base}/v1/delivery-days/${s.delivery_day}/open-position`, {
      headers: { "x-api-key": s.external_key },
    })).json() as { version: number; areas: Record<string, number[]> };
    assert.equal(agg.version, s.aggregate_version);

    const csv = (await Deno.readTextFile(s.csv)).trim().split("\r\n");
    const header = csv[0].split(",");
    // Every control area's ESS document carries the aggregate: purchase = the positive part,
    // sale = the magnitude of the negative part, MW with 3 decimals; the CSV agrees too.
    assert.equal(s.submitted.documents.length, 4);
    const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@" });
    for (const d of s.submitted.documents) {
      const m = parser.parse(await Deno.readTextFile(d.location)).ScheduleMessage;
      const series = [].concat(m.ScheduleTimeSeries) as {
        InParty: { "@v": string };
        Period: { Interval: { Qty: { "@v": string } }[] };
      }[];
      const qty = (inParty: string) =>
        series.find((x) => x.InParty["@v"] === inParty)!.Period.Interval.map((q) =>
          Number(q.Qty["@v"])
        );
      const mw = agg.areas[d.control_area];
      const r3 = (x: number) => Math.round(x * 1000) / 1000;
      assert.deepEqual(qty("11XDE-EXAMPLE--H"), mw.map((x) => r3(Math.max(x, 0))), d.file);
      assert.deepEqual(qty("11XEPEX-SPOT-DEJ"), mw.map((x) => r3(Math.max(-x, 0))), d.file);
      const col = header.indexOf(d.control_area);
      assert.ok(col > 1, `CSV has a column for ${d.control_area}`);
      assert.deepEqual(csv.slice(1).map((row) => Number(row.split(",")[col])), mw);
      assert.ok(mw.some((q) => q !== 0), "a non-trivial open position");
    }
    assert.equal(s.confirmed, "4 of 4 confirmed");

    // Yesterday after delivery: the last line, as the settlement has it (docs/settlement.md).
    const last = text.slice(0, text.indexOf("DEMO_SUMMARY")).trimEnd().split("\n").at(-1)!;
    assert.match(
      last,
      /^yesterday: [\d,]+\.\d MWh short, [\d,]+\.\d MWh long, imbalance cost -?[\d,]+\.\d\d EUR \(day-ahead only: -?[\d,]+\.\d\d EUR\); intraday saved -?[\d,]+\.\d\d EUR net of -?[\d,]+\.\d\d EUR for the intraday energy at ID AEP; estimated: priced by the TSOs' AEP estimate until the reBAP is published after quality assurance$/,
    );
    const y = (summary as { yesterday: { line: string; status: string; cost_eur: number } })
      .yesterday;
    assert.equal(y.line, last);
    // Every metered location arrived, but the morning after only the AEP estimate is known.
    assert.equal(y.status, "provisional", "priced by the estimate until the reBAP is published");

    // The learned location (the real OpenSTEF history): the line before, its last-28-days error
    // beside the week before's, in the next day's schedule (docs/forecasting.md, "In the service").
    const learnedText = text.slice(0, text.indexOf("DEMO_SUMMARY")).trimEnd().split("\n").at(-2)!;
    const lm =
      /^learned forecast for (\d{11}) \(OpenSTEF 307 \(real load, scaled\)\): MAE 28 days (\d+\.\d\d) MW vs 7 days before (\d+\.\d\d) MW \((\d+) days\); in the schedule of (\d{4}-\d\d-\d\d) \((learned|learned_without_weather)\)$/
        .exec(learnedText);
    assert.ok(lm, `learned line: ${learnedText}`);
    const learned = (summary as {
      learned: {
        id: string;
        line: string;
        last_28_days: { model: { mae_kw: number; days: number }; week_before: { mae_kw: number } };
      };
    }).learned;
    assert.equal(learned.line, learnedText);
    assert.equal(lm[5], s.delivery_day);
    assert.ok(Number(lm[4]) >= 20, "judged on most of the last 28 days");
    assert.ok(
      learned.last_28_days.model.mae_kw < 0.85 * learned.last_28_days.week_before.mae_kw,
      "the learned forecast beats the week before by the issue's margin",
    );
    // In the schedule: the open position counts it (no location without forecast but the parks').
    const model = await (await fetch(
      `${base}/v1/market-locations/${learned.id}/forecast-model`,
      { headers: { "x-api-key": s.external_key } },
    )).json() as { days: { delivery_day: string; method: string }[] };
    assert.match(model.days.find((d) => d.delivery_day === s.delivery_day)!.method, /^learned/);

    // Today's intraday version: the line before, as the version history has it.
    const berlinNow = Temporal.Now.zonedDateTimeISO("Europe/Berlin");
    if (berlinNow.hour * 60 + berlinNow.minute < 23 * 60 + 25) {
      const final = text.slice(0, text.indexOf("DEMO_SUMMARY")).trimEnd().split("\n").at(-3)!;
      const m =
        /^today: v(\d+) sent (\d\d:\d\d), frozen before (\d\d:\d\d) Berlin, 4 of 4 confirmed$/
          .exec(final);
      assert.ok(m, `final line: ${final}`);
      const today = (summary as {
        today: { delivery_day: string; version: number; sent_at: string; frozen_before: string };
      }).today;
      assert.equal(today.delivery_day, berlinNow.toPlainDate().toString());
      assert.ok(Number(m[1]) >= 2, "an intraday version after the first pass's");
      const ahead = Date.parse(today.frozen_before) - Date.parse(today.sent_at);
      assert.ok(ahead >= 15 * 60_000 && ahead < 30 * 60_000, `lead time 15 min: ${ahead} ms`);
      const berlinHm = (iso: string) =>
        Temporal.Instant.from(iso).toZonedDateTimeISO("Europe/Berlin").toPlainTime().toString()
          .slice(0, 5);
      assert.deepEqual([m[2], m[3]], [berlinHm(today.sent_at), berlinHm(today.frozen_before)]);
      const h = await (await fetch(
        `${base}/v1/delivery-days/${today.delivery_day}/schedules/10YDE-VE-------2/versions`,
        { headers: { "x-api-key": (summary as { process_key: string }).process_key } },
      )).json() as { standing_version: number; versions: { phase: string; tso_status: string }[] };
      assert.equal(h.standing_version, Number(m[1]));
      assert.deepEqual(
        [h.versions.at(-1)?.phase, h.versions.at(-1)?.tso_status],
        ["intraday", "confirmed"],
      );
    }
  } finally {
    child.kill("SIGTERM");
    await lines.cancel().catch(() => {});
    await child.status;
  }
});
