/**
 * The bad paths of post-delivery corrections (docs/post-delivery.md) and the runtime field
 * `tso_non_working_days`, on a fake clock on the files channel: a wrong quantity count, numbers
 * that are not finite, a wrong unit, a malformed and an inactive control area, a day not yet
 * delivered, an area without a schedule of the day, a correction that changes nothing, the
 * deadline passed, and `schedule_format` json — each refused in words, nothing written to the
 * outbox, no event; the field validated (EIC, date, known TSO, twice), audited, and moving the
 * deadline it is about.
 */
import assert from "node:assert/strict";
import { deliveryDay } from "../../lib/domain/delivery_day.ts";
import { loadSettings, SettingsError } from "../../lib/settings.ts";
import type { PostDelivery } from "../../lib/wire/post_delivery.ts";
import { call, storedEvents } from "../support/app.ts";
import { proc } from "../support/day_ahead_rig.ts";
import { startWalk } from "../support/intraday_walk.ts";
import { keysEnv } from "../support/keys.ts";
import { AREAS } from "../support/portfolio.ts";

const DAY = "2026-11-27"; // a Friday: Amprion until Mon 30 Nov 16:00 Berlin
const json = { ...proc, "content-type": "application/json" };
const n = deliveryDay(DAY).quarterHours.length;

type Problem = { detail: string | { loc: unknown[]; msg: string; type: string }[] };

Deno.test("post-delivery: every refusal in words, nothing sent", async () => {
  const w = await startWalk(DAY);
  const url = w.r.s.url;
  const post = (area: string, body: string, day = DAY) =>
    call(`${url}/v1/delivery-days/${day}/schedules/${area}/post-delivery`, {
      method: "POST",
      headers: json,
      body,
    });
  const amprion = (body: unknown) => post(AREAS.amprion, JSON.stringify(body));
  const detail = (r: { body: unknown }) => (r.body as Problem).detail;
  try {
    await w.forecast(1_000);
    await w.pass();
    const files = w.files();
    assert.equal(files.length, 1);

    // During delivery (Fri 12:00): not before the day has ended.
    w.at(0, "12:00");
    let r = await amprion({ unit: "MW", quantities: Array(n).fill(2) });
    assert.equal(r.status, 409);
    assert.match(
      String(detail(r)),
      /Delivery of 2026-11-27 has not ended \(it ends at 2026-11-27T23:00:00Z\); a post-delivery correction is possible only afterwards, until Mon 30 Nov 2026 16:00 Berlin at Amprion/,
    );

    // Sat 10:00, the window open: malformed bodies are 422 with the place.
    w.at(1, "10:00");
    r = await amprion({ unit: "MW", quantities: Array(n - 1).fill(2) });
    assert.equal(r.status, 422);
    let items = detail(r) as { loc: unknown[]; msg: string; type: string }[];
    assert.deepEqual(items.map((i) => [i.loc, i.type]), [[
      ["body", "quantities"],
      "value_error.length",
    ]]);
    assert.match(items[0].msg, /delivery day 2026-11-27 has 96 quarter-hours; got 95 quantities/);
    // 1e999 is Infinity once parsed; "NaN" is text.
    const q = Array(n).fill("2");
    q[5] = "1e999";
    q[9] = '"NaN"';
    r = await post(AREAS.amprion, `{"unit":"MW","quantities":[${q.join(",")}]}`);
    assert.equal(r.status, 422);
    items = detail(r) as typeof items;
    const locs = items.map((i) => JSON.stringify(i.loc));
    assert.ok(locs.includes('["body","quantities",5]'), locs.join(" "));
    assert.ok(locs.includes('["body","quantities",9]'), locs.join(" "));
    r = await amprion({ unit: "kW", quantities: Array(n).fill(2) });
    assert.equal(r.status, 422);
    r = await amprion({ from: "forecast" });
    assert.equal(r.status, 422);
    r = await post("not-an-eic", JSON.stringify({ from: "actuals" }));
    assert.equal(r.status, 422);
    assert.deepEqual((detail(r) as typeof items)[0].loc, ["path", "control_area"]);

    // An area that is not active: 404, naming the active ones.
    r = await post(AREAS.tennet, JSON.stringify({ from: "actuals" }));
    assert.equal(r.status, 404);
    assert.match(String(detail(r)), /not an active control area \(active: 10YDE-RWENET---I\)/);

    // Active, but no schedule of the day was sent there: 409.
    const put = await call(`${url}/v1/console/config`, {
      method: "PUT",
      headers: json,
      body: JSON.stringify({ active_control_areas: [AREAS.amprion, AREAS.tennet] }),
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    r = await post(AREAS.tennet, JSON.stringify({ unit: "MW", quantities: Array(n).fill(2) }));
    assert.equal(r.status, 409);
    assert.match(
      String(detail(r)),
      /No schedule of 2026-11-27 for 10YDE-EON------1 was sent to TenneT TSO \(10XDE-EON-NETZ-C\), so there is nothing to correct/,
    );

    // No actual known yet: "from actuals" has nothing to set the schedule to.
    r = await amprion({ from: "actuals" });
    assert.equal(r.status, 409);
    assert.match(String(detail(r)), /No actual of 2026-11-27 in 10YDE-RWENET---I is known yet/);

    // A correction equal to the version the TSO has changes nothing.
    r = await amprion({ unit: "MW", quantities: Array(n).fill(1) });
    assert.equal(r.status, 409);
    assert.match(String(detail(r)), /changes no quarter-hour of version 1/);
    r = await amprion({ unit: "MW", quantities: Array(n).fill(null) });
    assert.equal(r.status, 409);

    // schedule_format json: no documents, no correction.
    const toJson = await call(`${url}/v1/console/config`, {
      method: "PUT",
      headers: json,
      body: JSON.stringify({ schedule_channel: "platform", schedule_format: "json" }),
    });
    assert.equal(toJson.status, 200, JSON.stringify(toJson.body));
    r = await amprion({ unit: "MW", quantities: Array(n).fill(2) });
    assert.equal(r.status, 409);
    assert.match(String(detail(r)), /schedule_format is json/);
    await call(`${url}/v1/console/config`, {
      method: "PUT",
      headers: json,
      body: JSON.stringify({ schedule_channel: null, schedule_format: null }),
    });

    // Tue 1 Dec: the deadline has passed.
    w.at(4, "09:00");
    r = await amprion({ unit: "MW", quantities: Array(n).fill(2) });
    assert.equal(r.status, 409);
    assert.match(String(detail(r)), /closed at Mon 30 Nov 2026 16:00 Berlin/);

    assert.deepEqual(w.files(), files, "nothing was written");
    assert.equal((await w.history()).length, 1);
    const events = await storedEvents(w.r.s.kv);
    assert.equal(events.filter((e) => e.kind === "post_delivery_correction_sent").length, 0);
  } finally {
    await w.close();
  }
});

Deno.test("post-delivery: tso_non_working_days is validated, audited and moves the deadline", async () => {
  const w = await startWalk(DAY);
  const url = w.r.s.url;
  const put = (body: unknown) =>
    call(`${url}/v1/console/config`, { method: "PUT", headers: json, body: JSON.stringify(body) });
  const deadline = async () => {
    const g = await call(`${url}/v1/delivery-days/${DAY}/post-delivery`, { headers: proc });
    assert.equal(g.status, 200, JSON.stringify(g.body));
    return (g.body as PostDelivery).areas[0];
  };
  try {
    assert.equal((await deadline()).deadline_local, "Mon 30 Nov 2026 16:00");
    const bad: [unknown, RegExp][] = [
      [["10XDE-RWENET---X=2026-11-30"], /not a valid EIC 10XDE-RWENET---X/],
      [["10XDE-RWENET---W=2026-02-30"], /2026-02-30 is not a calendar date/],
      [["10XDE-RWENET---W 2026-11-30"], /expected TSO EIC=YYYY-MM-DD/],
      [["10XDE-RWENET---W=2026-11-30", "10XDE-RWENET---W=2026-11-30"], /listed twice/],
      [["11X0-1111-0123-N=2026-11-30"], /11X0-1111-0123-N is not a TSO this service sends/],
    ];
    for (const [value, why] of bad) {
      const r = await put({ tso_non_working_days: value });
      assert.equal(r.status, 422, JSON.stringify(value));
      const items = (r.body as Problem).detail as { loc: unknown[]; msg: string }[];
      assert.equal(items[0].loc[1], "tso_non_working_days");
      assert.match(items.map((i) => i.msg).join("; "), why);
    }
    const ok = await put({ tso_non_working_days: ["10XDE-RWENET---W=2026-11-30"] });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const changed = (await storedEvents(w.r.s.kv)).find((e) => e.kind === "config_changed");
    assert.deepEqual((changed?.data as { changes: unknown[] }).changes, [{
      field: "tso_non_working_days",
      from: [],
      to: ["10XDE-RWENET---W=2026-11-30"],
    }]);
    const a = await deadline();
    assert.equal(a.deadline_local, "Tue 1 Dec 2026 16:00");
    assert.match(a.rule, /Mon 30 Nov 2026: configured non-working day/);
    assert.match(a.rule, /plus 1 configured non-working days/);
  } finally {
    await w.close();
  }
});

Deno.test("post-delivery: TSO_NON_WORKING_DAYS is checked at start, naming the variable", () => {
  assert.throws(
    () => loadSettings({ ...keysEnv(), TSO_NON_WORKING_DAYS: "10XDE-VE-TRANSMK=2026-13-01" }),
    (err: unknown) => {
      assert.ok(err instanceof SettingsError);
      assert.match(err.message, /TSO_NON_WORKING_DAYS.*2026-13-01 is not a calendar date/s);
      return true;
    },
  );
  const s = loadSettings({
    ...keysEnv(),
    TSO_NON_WORKING_DAYS: "10XDE-VE-TRANSMK=2026-12-24, 10XDE-ENBW--TNGX=2026-12-31",
  });
  assert.ok(s);
});
