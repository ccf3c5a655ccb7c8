/**
 * A healthy evening for browser tests (issue 28): the service on a temp-file KV at a fake clock,
 * files channel; households with a load profile in the four control areas and one PV park with
 * forecasts for today and tomorrow only; the first pass ran the day before at 14:00 (before the
 * TSO deadline), every TSO confirmed every day's v1, and the clock stands at Tue 24 Nov 2026,
 * 19:47 Berlin.
 * @module
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { call, startServer, type TestServer } from "./app.ts";
import { EXT, postForecast, PROC, proc, putLocation } from "./day_ahead_rig.ts";
import { FILES_CHANNEL_ENV } from "./fahrplan.ts";
import { AREAS } from "./portfolio.ts";
import { cnfFile, TSO } from "./tso_answers.ts";

/** Mon 23 Nov 14:00 Berlin: the first pass. */
export const FIRST_PASS = Date.parse("2026-11-23T13:00:00Z");
/** Tue 24 Nov 19:47 Berlin: the evening. */
export const EVENING = Date.parse("2026-11-24T18:47:00Z");
export const TODAY = "2026-11-24";
export const TOMORROW = "2026-11-25";

/** The service of the evening, its clock at {@link EVENING}, its inbox under `dir/inbox`. */
export async function evening(dir: string): Promise<{ s: TestServer; clock: FakeClock }> {
  const clock = new FakeClock(FIRST_PASS);
  const s = await startServer({
    PROCESS_API_KEYS: `ops:${PROC}`,
    EXTERNAL_API_KEYS: `acme:${EXT}`,
    RATE_LIMIT_PER_MINUTE: "0",
    ...FILES_CHANNEL_ENV,
    OUTBOX_DIR: `${dir}/outbox`,
    SCHEDULE_INBOX_DIR: `${dir}/inbox`,
  }, { clock });
  for (const [i, area] of Object.values(AREAS).entries()) {
    await putLocation(s, i + 1, {
      control_area: area,
      direction: "consumption",
      standard_load_profile: "H0",
      annual_kwh: 3_500_000,
    });
  }
  await putLocation(s, 5, { control_area: AREAS.amprion, direction: "generation", name: "PV" });
  for (const d of [TODAY, TOMORROW]) await postForecast(s, 5, d, Array(96).fill(500));
  await call(`${s.url}/v1/console/start`, { method: "POST", headers: proc });
  const pass = await call(`${s.url}/v1/orchestrate`, { method: "POST", headers: proc });
  assert.equal(pass.status, 200, JSON.stringify(pass.body));
  const days = (pass.body as { days: { delivery_day: string; ran: string[] }[] }).days
    .filter((d) => d.ran.includes("submit")).map((d) => d.delivery_day);
  assert.ok(days.includes(TODAY) && days.includes(TOMORROW), JSON.stringify(days));
  await Deno.mkdir(`${dir}/inbox`, { recursive: true });
  for (const d of days) {
    for (const tso of Object.values(TSO)) {
      await Deno.writeTextFile(`${dir}/inbox/${d}-${tso}.xml`, cnfFile(d, tso, 1));
    }
  }
  const imp = await call(`${s.url}/v1/schedule-responses/import`, {
    method: "POST",
    headers: proc,
  });
  assert.ok(
    (imp.body as { files: { outcome: string }[] }).files.every((f) => f.outcome === "imported"),
    JSON.stringify(imp.body),
  );
  clock.advance(EVENING - FIRST_PASS);
  return { s, clock };
}
