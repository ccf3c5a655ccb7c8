/**
 * The demo as a test (issue: "start it, wait for submitted, check the outbox CSV and the
 * simulator's record agree with the aggregate"). Runs `dev/demo.ts` as its own process.
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/temp.ts";

Deno.test("demo: next open day reaches submitted; CSV, simulator record and aggregate agree", async () => {
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
      submitted: { version: number; receipt: { submission_id: string } } | null;
      simulator: { url: string; key: string; ca: string };
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
    const client = Deno.createHttpClient({ caCerts: [await Deno.readTextFile(s.simulator.ca)] });
    const stored = await (await fetch(`${s.simulator.url}/schedules`, {
      headers: { authorization: s.simulator.key },
      client,
    })).json() as {
      submissions: {
        submission_id: string;
        body: { delivery_day: string; schedules: { control_area: string; quantities: number[] }[] };
      }[];
    };
    client.close();
    const record = stored.submissions.find((x) =>
      x.submission_id === s.submitted!.receipt.submission_id
    )!;
    assert.equal(record.body.delivery_day, s.delivery_day);
    assert.equal(record.body.schedules.length, 4);
    for (const sched of record.body.schedules) {
      const col = header.indexOf(sched.control_area);
      assert.ok(col > 1, `CSV has a column for ${sched.control_area}`);
      const fromCsv = csv.slice(1).map((row) => Number(row.split(",")[col]));
      assert.deepEqual(fromCsv, sched.quantities);
      assert.deepEqual(agg.areas[sched.control_area], sched.quantities);
      assert.ok(sched.quantities.some((q) => q !== 0), "a non-trivial open position");
    }
    assert.equal(csv.length - 1, record.body.schedules[0].quantities.length);
  } finally {
    child.kill("SIGTERM");
    await lines.cancel().catch(() => {});
    await child.status;
  }
});
