/**
 * When the after-delivery view reads its settlement again (docs/console_after_delivery.md):
 * after exactly the live events the service appends when a settlement input is stored
 * (`actuals_received`, `imbalance_prices_received`; lib/settlement/import.ts), for actuals only
 * when they are of the shown day; never after events that store nothing for it. And a day whose
 * settlement has schedules but no actual at all reads "No actuals … yet", never "0.00 EUR".
 */
import assert from "node:assert/strict";
import { renderToString } from "preact-render-to-string";
import { rebapFile } from "../../dev/metering_simulator.ts";
import { AfterDeliveryView, changesSettlement } from "../../islands/AfterDelivery.tsx";
import { FakeClock } from "../../lib/clock.ts";
import { importPrices } from "../../lib/settlement/import_prices.ts";
import type { NewEvent } from "../../lib/wire/events.ts";
import type { ServiceContext } from "../../lib/context.ts";
import { RuntimeConfig } from "../../lib/config/runtime_config.ts";
import { daySettlement } from "../support/settlement_fixture.ts";
import { withKv } from "../support/temp.ts";

const DAY = "2026-11-17";

Deno.test("the kind a stored reBAP file appends re-reads every day's settlement", async () => {
  const appended: NewEvent[] = [];
  const events = { append: (e: NewEvent) => void appended.push(e) };
  await withKv(async (kv) => {
    const deps = {
      kv,
      clock: new FakeClock(Date.parse("2026-11-18T09:00:00Z")),
      events: events as unknown as ServiceContext["events"],
      config: new RuntimeConfig(kv, {}),
    };
    await importPrices(deps, rebapFile(DAY), "ops", "test");
  });
  assert.deepEqual(appended.map((e) => e.kind), ["imbalance_prices_received"]);
  assert.equal(changesSettlement(appended[0], DAY), true);
  assert.equal(changesSettlement(appended[0]), true);
});

Deno.test("actuals of the day re-read it; of another day, or events storing nothing, do not", () => {
  assert.equal(changesSettlement({ kind: "actuals_received", delivery_day: DAY }, DAY), true);
  assert.equal(changesSettlement({ kind: "actuals_received", delivery_day: undefined }, DAY), true);
  assert.equal(
    changesSettlement({ kind: "actuals_received", delivery_day: "2026-11-16" }, DAY),
    false,
  );
  for (
    const kind of [
      "settlement_input_rejected",
      "schedule_confirmed",
      "forecast_received",
      "api_call",
    ] as const
  ) {
    assert.equal(changesSettlement({ kind, delivery_day: DAY }, DAY), false, kind);
  }
});

Deno.test("schedules but nothing measured: 'No actuals … yet', no chart, no 0.00 EUR", () => {
  const s = daySettlement(DAY, "2026-11-16T23:00:00Z");
  const zero = { short_mwh: 0, long_mwh: 0, cost_eur: 0, day_ahead_cost_eur: 0 };
  const body = {
    ...s,
    totals: { ...s.totals, ...zero },
    areas: s.areas.map((a) => ({
      ...a,
      actual_mw: a.actual_mw.map((): number | null => null),
      totals: { ...a.totals, ...zero },
    })),
  };
  const html = renderToString(
    <AfterDeliveryView
      day={DAY}
      load={{ kind: "ok", body }}
      locale="en"
      nowMs={Date.parse("2026-11-18T09:00:00Z")}
    />,
  );
  assert.match(html, /No actuals for this day yet/);
  assert.doesNotMatch(html, /<svg|0\.00/);
  // One actual is enough for the view.
  body.areas[0].actual_mw[3] = 2;
  assert.match(
    renderToString(
      <AfterDeliveryView day={DAY} load={{ kind: "ok", body }} locale="en" nowMs={0} />,
    ),
    /<svg/,
  );
});
