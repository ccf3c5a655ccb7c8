/**
 * The deadline fields of intraday schedules (docs/intraday.md, "Configuration"):
 * `tso_deadline_local_time`, `intraday_lead_minutes`, `intraday_min_change_mw` — checked when the
 * service starts (the environment) and on every console change (422 naming the field).
 */
import assert from "node:assert/strict";
import { loadSettings, SettingsError } from "../../lib/settings.ts";
import { call, startServer } from "../support/app.ts";
import { PROC } from "../support/keys.ts";

const env = { PROCESS_API_KEYS: `ops:${PROC}`, RATE_LIMIT_PER_MINUTE: "0" };
const auth = { "x-api-key": PROC, "content-type": "application/json" };

Deno.test("intraday config: bad environment values stop the start, each named", () => {
  assert.throws(
    () =>
      loadSettings({
        ...env,
        TSO_DEADLINE_LOCAL_TIME: "24:30",
        INTRADAY_LEAD_MINUTES: "20",
        INTRADAY_MIN_CHANGE_MW: "0",
      }),
    (e: Error) => {
      assert.ok(e instanceof SettingsError);
      const vars = e.problems.map((p) => p.variable).sort();
      assert.deepEqual(vars, [
        "INTRADAY_LEAD_MINUTES",
        "INTRADAY_MIN_CHANGE_MW",
        "TSO_DEADLINE_LOCAL_TIME",
      ]);
      assert.match(e.message, /multiple of 15/);
      return true;
    },
  );
  assert.throws(() => loadSettings({ ...env, INTRADAY_LEAD_MINUTES: "195" }), SettingsError);
  loadSettings({ ...env, INTRADAY_LEAD_MINUTES: "180", TSO_DEADLINE_LOCAL_TIME: "15:00" });
});

Deno.test("intraday config: defaults, env, and console changes checked (422 per field)", async () => {
  const s = await startServer({ ...env, INTRADAY_LEAD_MINUTES: "30" });
  try {
    const cfg = await s.bridge.ctx.config.effective();
    assert.deepEqual(
      [cfg.tso_deadline_local_time, cfg.intraday_lead_minutes, cfg.intraday_min_change_mw],
      ["14:30", 30, 0.001],
    );
    const bad = await call(`${s.url}/v1/console/config`, {
      method: "PUT",
      headers: auth,
      body: JSON.stringify({ intraday_lead_minutes: 25, tso_deadline_local_time: "7:30" }),
    });
    assert.equal(bad.status, 422);
    const locs = (bad.body as { detail: { loc: string[] }[] }).detail.map((d) => d.loc[1]).sort();
    assert.deepEqual(locs, ["intraday_lead_minutes", "tso_deadline_local_time"]);
    assert.equal((await s.bridge.ctx.config.effective()).intraday_lead_minutes, 30);
    const ok = await call(`${s.url}/v1/console/config`, {
      method: "PUT",
      headers: auth,
      body: JSON.stringify({ intraday_lead_minutes: 45, intraday_min_change_mw: 0.5 }),
    });
    assert.equal(ok.status, 200);
    const after = await s.bridge.ctx.config.effective();
    assert.deepEqual([after.intraday_lead_minutes, after.intraday_min_change_mw], [45, 0.5]);
  } finally {
    await s.close();
  }
});
