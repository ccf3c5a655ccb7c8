/**
 * The 422 items of the market-location bodies (lib/wire/market_locations.ts, docs/pipeline.md,
 * "Market locations"): every problem of an item is named at once, also when a field's own check
 * fails beside the rule that a profile needs its annual energy.
 */
import assert from "node:assert/strict";
import { parseOr422 } from "../../lib/http/validation.ts";
import { MarketLocationBatch, MarketLocationInput } from "../../lib/wire/market_locations.ts";
import { ValidationFailed } from "../../lib/http/errors.ts";
import { maloId } from "../support/portfolio.ts";

function refused(schema: Parameters<typeof parseOr422>[0], body: unknown): [unknown[], string][] {
  try {
    parseOr422(schema, body, "body");
  } catch (err) {
    assert.ok(err instanceof ValidationFailed);
    return err.items.map((i) => [i.loc, i.type]);
  }
  assert.fail("accepted");
}

Deno.test("market-location bodies: a bad EIC or MaLo-ID does not hide the missing annual energy", () => {
  assert.deepEqual(
    refused(MarketLocationInput, {
      control_area: "10YDE-RWENET---J",
      direction: "consumption",
      standard_load_profile: "H0",
    }),
    [[["body", "control_area"], "value_error.eic"], [["body", "annual_kwh"], "missing"]],
  );
  const wrongDigit = maloId(1).slice(0, 10) + ((Number(maloId(1)[10]) + 1) % 10);
  assert.deepEqual(
    refused(MarketLocationBatch, {
      market_locations: [
        { malo_id: maloId(2), control_area: "10YDE-RWENET---I", direction: "consumption" },
        {
          malo_id: wrongDigit,
          control_area: "bad",
          direction: "consumption",
          standard_load_profile: "G0",
        },
      ],
    }),
    [
      [["body", "market_locations", 1, "malo_id"], "value_error.malo_id"],
      [["body", "market_locations", 1, "control_area"], "value_error.eic"],
      [["body", "market_locations", 1, "annual_kwh"], "missing"],
    ],
  );
});
