/**
 * The proposal of a post-delivery correction (lib/post_delivery/proposal.ts,
 * docs/post-delivery.md, "GET"): where the actual is unknown the standing value stays and nothing
 * moves (`null`, never 0); where the price is unknown the value is `null` and counted; the sums
 * and the sign (short moves to the counterparty as > 0), computed here by hand.
 */
import assert from "node:assert/strict";
import { correctionEffect, proposalOf } from "../../lib/post_delivery/proposal.ts";

Deno.test("proposal: unknown actuals keep the schedule, unknown prices leave the value open", () => {
  const p = proposalOf(
    {
      // 4 quarter-hours: short by 1 MW, long by 2 MW, unknown, short by 0.4 MW without a price.
      actual_mw: [3, 0, null, 2.4],
      price_eur_mwh: [100, 40, null, null],
    },
    { version: 5, quantities: [2, 2, 2, 2] },
  );
  assert.deepEqual(p.schedule_mw, [3, 0, 2, 2.4]);
  assert.deepEqual(p.moved_mwh, [0.25, -0.5, null, 0.1]);
  assert.deepEqual(p.value_eur, [25, -20, null, null]);
  assert.deepEqual(
    [p.moved_short_mwh, p.moved_long_mwh, p.value_eur_total, p.unpriced_quarter_hours],
    [0.35, 0.5, 5, 1],
  );
  assert.deepEqual([p.known_quarter_hours, p.changed_quarter_hours, p.standing_version], [3, 3, 5]);
});

Deno.test("proposal: no price anywhere → value_eur_total null; the actual rounded to 1 kW", () => {
  const p = proposalOf(
    { actual_mw: [1.23449, 2.0004], price_eur_mwh: [null, null] },
    { version: 1, quantities: [1, 2] },
  );
  assert.deepEqual(p.schedule_mw, [1.234, 2]);
  assert.equal(p.changed_quarter_hours, 1, "2.0004 MW rounds to the schedule's 2 MW");
  assert.equal(p.value_eur_total, null);
  assert.equal(p.unpriced_quarter_hours, 1);
});

Deno.test("correction effect: changed quarter-hours and MWh moved each way, at 3 decimals", () => {
  const e = correctionEffect([1, 1, 1], [1.0004, 2, -1]);
  assert.deepEqual([e.changed, e.moved, e.short, e.long], [2, [0, 0.25, -0.5], 0.25, 0.5]);
});
