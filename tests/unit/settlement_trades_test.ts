/**
 * The BRP's own intraday trades as CSV (docs/settlement.md, "What intraday saved"): read per row,
 * stored per day and area as the volume and the volume-weighted price of each quarter-hour; every
 * bad row refused naming its line and field.
 */
import assert from "node:assert/strict";
import { parseTrades, storeTrades, tradesOfDay } from "../../lib/settlement/intraday_trades.ts";
import { refusal } from "../support/issues.ts";
import { withKv } from "../support/temp.ts";

const AMPRION = "10YDE-RWENET---I";

Deno.test("trades: volume-weighted price per quarter-hour (buys and sells by volume); a file replaces its days", async () => {
  const csv = [
    "control_area,start,mwh,eur_mwh",
    `${AMPRION},2027-03-10T10:00:00+01:00,0.4,100`,
    `${AMPRION},2027-03-10T10:00:00+01:00,-0.1,50`,
    `${AMPRION},2027-03-10T10:15:00+01:00,1,-20`,
  ].join("\n");
  await withKv(async (kv) => {
    const out = await storeTrades(kv, parseTrades(csv), "test", Date.parse("2027-03-11T08:00Z"));
    assert.deepEqual(out, { trades: 3, days: [`2027-03-10 ${AMPRION}`] });
    const t = (await tradesOfDay(kv, "2027-03-10", AMPRION))!;
    // 10:00 Berlin = 09:00Z = quarter-hour 40 of the day (starting 23:00Z the day before).
    assert.deepEqual([t.volume_mwh[40], t.price_eur_mwh[40]], [0.5, 90]);
    assert.deepEqual([t.volume_mwh[41], t.price_eur_mwh[41]], [1, -20]);
    assert.equal(t.price_eur_mwh[39], null);
    await storeTrades(
      kv,
      parseTrades(`control_area,start,mwh,eur_mwh\n${AMPRION},2027-03-10T12:00:00Z,2,70\n`),
      "again",
      Date.parse("2027-03-11T09:00Z"),
    );
    const u = (await tradesOfDay(kv, "2027-03-10", AMPRION))!;
    assert.deepEqual([u.price_eur_mwh[40], u.price_eur_mwh[52]], [null, 70]);
  });
});

Deno.test("trades: a bad EIC, start, volume or price is refused naming line and field", () => {
  const bad = refusal(() =>
    parseTrades([
      "control_area,start,mwh,eur_mwh",
      "10YDE-RWENET---J,2027-03-10T10:00:00+01:00,1,50",
      `${AMPRION},2027-03-10T10:05:00+01:00,1,50`,
      `${AMPRION},2027-03-10T10:00:00,1,50`,
      `${AMPRION},2027-03-10T10:00:00+01:00,0,50`,
      `${AMPRION},2027-03-10T10:00:00+01:00,1,abc`,
    ].join("\n"))
  ).map((i) => i.msg).join("\n");
  assert.match(bad, /line 2, control_area: 10YDE-RWENET---J is not a valid EIC/);
  assert.match(
    bad,
    /line 3, start: 2027-03-10T10:05:00\+01:00 \(2027-03-10T09:05Z\) is not the start of a quarter-hour/,
  );
  assert.match(bad, /line 4, start: 2027-03-10T10:00:00 is not ISO 8601 with an offset/);
  assert.match(bad, /line 5, mwh: 0 is not a volume in MWh/);
  assert.match(bad, /line 6, eur_mwh: abc is not a price in EUR\/MWh/);
  assert.match(
    refusal(() => parseTrades("area,start,mwh\nx,y,z\n"))[0].msg,
    /line 1: expected the header control_area,start,mwh,eur_mwh, got area,start,mwh/,
  );
});
