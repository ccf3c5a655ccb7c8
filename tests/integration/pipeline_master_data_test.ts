/**
 * Master data and path validation over HTTP: market locations (CRUD, 422 field by field) and the
 * delivery-day routes refusing an impossible day with a 422 that names `path.day`, never a 500.
 */
import assert from "node:assert/strict";
import { call, startServer } from "../support/app.ts";
import { env, ext, type Item, proc } from "../support/pipeline.ts";
import { AREAS, maloId } from "../support/portfolio.ts";

Deno.test("market locations: CRUD and 422 field by field", async () => {
  const s = await startServer(env);
  try {
    const id = maloId(1);
    const created = await call(`${s.url}/v1/market-locations/${id}`, {
      method: "PUT",
      headers: ext,
      body: JSON.stringify({
        control_area: AREAS.amprion,
        direction: "consumption",
        standard_load_profile: "H0",
        annual_kwh: 3500,
        name: "Bäckerei",
      }),
    });
    assert.equal(created.status, 201);
    const again = await call(`${s.url}/v1/market-locations/${id}`, {
      method: "PUT",
      headers: ext,
      body: JSON.stringify({ control_area: AREAS.amprion, direction: "consumption" }),
    });
    assert.equal(again.status, 200);
    const list = await call(`${s.url}/v1/market-locations`, { headers: ext });
    assert.equal((list.body as { market_locations: unknown[] }).market_locations.length, 1);
    const cases: [string, unknown, unknown[], string][] = [
      [
        "41373559240",
        { control_area: AREAS.amprion, direction: "consumption" },
        ["path", "malo_id"],
        "value_error.malo_id",
      ],
      [
        id,
        { control_area: "10YDE-RWENET---J", direction: "consumption" },
        ["body", "control_area"],
        "value_error.eic",
      ],
      [
        id,
        { control_area: AREAS.amprion, direction: "sideways" },
        ["body", "direction"],
        "value_error.enum",
      ],
      [id, { control_area: AREAS.amprion, direction: "consumption", standard_load_profile: "H0" }, [
        "body",
        "annual_kwh",
      ], "missing"],
      [id, { control_area: AREAS.amprion, direction: "consumption", colour: "red" }, [
        "body",
        "colour",
      ], "extra_forbidden"],
      [
        id,
        {
          control_area: AREAS.amprion,
          direction: "consumption",
          standard_load_profile: "H0",
          annual_kwh: -3500,
        },
        ["body", "annual_kwh"],
        "value_error.too_small",
      ],
      [
        id,
        {
          control_area: AREAS.amprion,
          direction: "consumption",
          standard_load_profile: "H1",
          annual_kwh: 3500,
        },
        ["body", "standard_load_profile"],
        "value_error.enum",
      ],
    ];
    for (const [mid, body, loc, type] of cases) {
      const r = await call(`${s.url}/v1/market-locations/${mid}`, {
        method: "PUT",
        headers: ext,
        body: JSON.stringify(body),
      });
      assert.equal(r.status, 422, JSON.stringify(body));
      const item = (r.body as { detail: Item[] }).detail[0];
      assert.deepEqual(item.loc, loc);
      assert.equal(item.type, type);
    }
    assert.equal(
      (await call(`${s.url}/v1/market-locations/${id}`, { method: "DELETE", headers: ext })).status,
      204,
    );
    assert.equal((await call(`${s.url}/v1/market-locations/${id}`, { headers: ext })).status, 404);
  } finally {
    await s.close();
  }
});

Deno.test("delivery-day routes: an impossible day is a 422 naming path.day; never a 500", async () => {
  const s = await startServer(env);
  try {
    for (const bad of ["2026-02-30", "2026-13-01", "26-01-01", "tomorrow"]) {
      const requests: [string, string, Record<string, string>][] = [
        ...["forecast", "aggregate", "publish", "submit"].map((step) =>
          ["POST", `/v1/delivery-days/${bad}/${step}`, proc] as [string, string, typeof proc]
        ),
        ["GET", `/v1/delivery-days/${bad}/open-position`, ext],
      ];
      for (const [method, path, headers] of requests) {
        const r = await call(`${s.url}${path}`, { method, headers });
        assert.equal(r.status, 422, `${method} ${path}`);
        const [item] = (r.body as { detail: Item[] }).detail;
        assert.deepEqual(item.loc, ["path", "day"]);
        assert.equal(item.input, bad);
      }
    }
    // Nothing was written for any of them.
    assert.equal((await Array.fromAsync(s.kv.list({ prefix: ["days"] }))).length, 0);
  } finally {
    await s.close();
  }
});
