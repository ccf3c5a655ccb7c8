/**
 * `POST /v1/actuals` and `POST /v1/imbalance-prices` over HTTP on a temp-file KV (docs/settlement.md):
 * the real MSCONS interchange stored per market location and day (energy per day = Σ QTY), posted
 * again changes nothing, a correction replaces and says so; an unknown location, a changed decimal
 * mark and a gap are refused in words with nothing stored; the real reBAP file; the scopes.
 */
import assert from "node:assert/strict";
import { call, startServer, storedEvents } from "../support/app.ts";
import { EXT, PROC } from "../support/keys.ts";
import { actualsOfDay } from "../../lib/settlement/actuals_store.ts";
import { pricesOfDay } from "../../lib/settlement/prices_store.ts";

const FIX = new URL("../fixtures/", import.meta.url);
const MULTI = Deno.readTextFileSync(new URL("mscons/MSCONS_TL_Multiple_LOC_SAMPLE.txt", FIX));
const REBAP = Deno.readTextFileSync(new URL("rebap/reBAP_2027-03_synthetic.csv", FIX));
const ext = { "x-api-key": EXT };
const proc = { "x-api-key": PROC };
const edifact = { ...ext, "content-type": "application/edifact" };

async function allActuals(kv: Deno.Kv): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix: ["actuals"] })) n++;
  return n;
}

Deno.test("POST /v1/actuals: the real MSCONS interchange, again, corrected, refused", async () => {
  const s = await startServer({
    PROCESS_API_KEYS: `ops:${PROC}`,
    EXTERNAL_API_KEYS: `acme:${EXT}`,
    RATE_LIMIT_PER_MINUTE: "0",
  });
  try {
    const put = (id: string) =>
      call(`${s.url}/v1/market-locations/${id}`, {
        method: "PUT",
        headers: ext,
        body: JSON.stringify({ control_area: "10YDE-RWENET---I", direction: "consumption" }),
      });
    assert.equal((await put("51481308448")).status, 201);

    // One location of the two is not ours: refused, nothing stored.
    let r = await call(`${s.url}/v1/actuals`, { method: "POST", headers: edifact, body: MULTI });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    const detail = (r.body as { detail: { msg: string }[] }).detail;
    assert.match(
      detail[0].msg,
      /message 2 \(UNH\+2, BGM E-121808993A-2\), segment 8941 \(LOC\): market location 51481308456 is not registered here/,
    );
    assert.equal(await allActuals(s.kv), 0);

    assert.equal((await put("51481308456")).status, 201);
    r = await call(`${s.url}/v1/actuals`, { method: "POST", headers: edifact, body: MULTI });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const first = r.body as Record<string, unknown>;
    assert.deepEqual(
      [first.format, first.market_locations, first.added, first.replaced, first.unchanged],
      ["mscons", 2, 2 * 2972, 0, 0],
    );
    assert.equal((first.days as string[]).length, 31);
    assert.equal(await allActuals(s.kv), 62);
    // Energy per day = Σ of the message's QTY values of that day (Σ over the month here).
    let stored = 0;
    for (const d of first.days as string[]) {
      for (const rec of (await actualsOfDay(s.kv, d)).values()) {
        stored += rec.kwh.reduce<number>((a, v) => a + (v ?? 0), 0);
      }
    }
    assert.ok(Math.abs(stored - (709.5 + 1117.9)) < 1e-9, String(stored));
    assert.equal((await actualsOfDay(s.kv, "2022-03-27")).get("51481308448")!.kwh.length, 92);

    // The same message again: idempotent.
    r = await call(`${s.url}/v1/actuals`, { method: "POST", headers: edifact, body: MULTI });
    assert.deepEqual(
      [(r.body as { added: number }).added, (r.body as { unchanged: number }).unchanged],
      [0, 2 * 2972],
    );

    // A correction of one quarter-hour replaces it and says so (CSV this time).
    r = await call(`${s.url}/v1/actuals`, {
      method: "POST",
      headers: { ...ext, "content-type": "text/csv" },
      body: "market_location_id,start,kwh\n51481308448,2022-03-10T13:00:00+01:00,7.25\n",
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const corr = r.body as { replaced: number; replacements: unknown[]; message: string };
    assert.equal(corr.replaced, 1);
    assert.deepEqual(corr.replacements, [{
      location: "51481308448",
      day: "2022-03-10",
      quarter_hours: 1,
    }]);
    assert.match(corr.message, /1 replaced earlier ones/);
    assert.equal((await actualsOfDay(s.kv, "2022-03-10")).get("51481308448")!.kwh[52], 7.25);
    const events = (await storedEvents(s.kv)).filter((e) => e.kind === "actuals_received");
    assert.equal(events.length, 3);
    assert.equal(events[2].level, "warning");

    // A changed decimal mark and a gap: refused, the stored value stays.
    r = await call(`${s.url}/v1/actuals`, {
      method: "POST",
      headers: edifact,
      body: MULTI.replace("UNA:+.? '", "UNA:+,? '"),
    });
    assert.equal(r.status, 422);
    assert.match(JSON.stringify(r.body), /decimal mark/);
    const drop = "QTY+220:0:KWH'DTM+163:202203101200?+00:303'DTM+164:202203101215?+00:303'";
    r = await call(`${s.url}/v1/actuals`, {
      method: "POST",
      headers: edifact,
      body: MULTI.replace(drop, ""),
    });
    assert.equal(r.status, 422);
    assert.match(
      JSON.stringify(r.body),
      /market location 51481308448: gap: nothing from 2022-03-10T12:00Z/,
    );
    assert.equal((await actualsOfDay(s.kv, "2022-03-10")).get("51481308448")!.kwh[52], 7.25);

    // Another type, and the process-only price route with the external key.
    r = await call(`${s.url}/v1/actuals`, {
      method: "POST",
      headers: { ...ext, "content-type": "application/xml" },
      body: "<x/>",
    });
    assert.equal(r.status, 415);
    r = await call(`${s.url}/v1/imbalance-prices`, {
      method: "POST",
      headers: { ...ext, "content-type": "text/csv" },
      body: REBAP,
    });
    assert.equal(r.status, 403);
  } finally {
    await s.close();
  }
});

Deno.test("POST /v1/imbalance-prices: the March 2027 file, then a newer one replaces", async () => {
  const s = await startServer({ PROCESS_API_KEYS: `ops:${PROC}`, RATE_LIMIT_PER_MINUTE: "0" });
  try {
    const post = (body: string) =>
      call(`${s.url}/v1/imbalance-prices`, {
        method: "POST",
        headers: { ...proc, "content-type": "text/csv" },
        body,
      });
    let r = await post(REBAP);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(
      [(r.body as { added: number }).added, (r.body as { days: string[] }).days.length],
      [2972, 31],
    );
    const d28 = await pricesOfDay(s.kv, "2027-03-28");
    assert.equal(d28!.short.length, 92);
    assert.equal(d28!.short[5], -824.89);
    const lines = REBAP.split("\n");
    r = await post(
      [
        lines[0],
        "28.03.2027;CET;01:15;01:30;EUR/MWh;1.234,50;-12,00",
        "28.03.2027;CET;01:30;01:45;EUR/MWh;N.A.;N.A.",
      ]
        .join("\n"),
    );
    assert.deepEqual(
      [(r.body as { replaced: number }).replaced, (r.body as { unknown: number }).unknown],
      [1, 1],
    );
    const after = await pricesOfDay(s.kv, "2027-03-28");
    assert.deepEqual([after!.short[5], after!.long[5], after!.short[6]], [1234.5, -12, 55]);
    r = await post("Datum;Zeitzone\n01.03.2027;CET\n");
    assert.equal(r.status, 422);
    assert.match(
      JSON.stringify(r.body),
      /line 1: not a price file we know \(Datum;Zeitzone\); we take the reBAP \(Datum;Zeitzone;von;bis;Einheit;/,
    );
  } finally {
    await s.close();
  }
});

Deno.test('POST /v1/actuals: a UNOC interchange in ISO 8859-1 (a DSO\'s "München") is stored', async () => {
  const s = await startServer({ EXTERNAL_API_KEYS: `acme:${EXT}`, RATE_LIMIT_PER_MINUTE: "0" });
  try {
    for (const id of ["51481308448", "51481308456"]) {
      const r = await call(`${s.url}/v1/market-locations/${id}`, {
        method: "PUT",
        headers: ext,
        body: JSON.stringify({ control_area: "10YDE-RWENET---I", direction: "consumption" }),
      });
      assert.equal(r.status, 201);
    }
    // UNB+UNOC: one byte per character; "ü" is 0xFC, which is no UTF-8.
    const named = MULTI.replace(/(NAD\+MS[^']*')/, "$1CTA+IC+:Stadtwerke München'");
    const body = Uint8Array.from(named, (c) => c.charCodeAt(0));
    assert.ok(body.includes(0xfc));
    const r = await call(`${s.url}/v1/actuals`, { method: "POST", headers: edifact, body });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal((r.body as { added: number }).added, 2 * 2972);
    assert.equal(await allActuals(s.kv), 62);

    // A refusal quotes the segment in its own characters.
    const bad = named.replace("LOC+172+51481308448", "LOC+999+Zählpunkt Süd");
    const refused = await call(`${s.url}/v1/actuals`, {
      method: "POST",
      headers: edifact,
      body: Uint8Array.from(bad, (c) => c.charCodeAt(0)),
    });
    assert.equal(refused.status, 422);
    assert.match(
      (refused.body as { detail: { msg: string }[] }).detail[0].msg,
      /\(LOC\+999\+Zählpunkt Süd\): expected LOC\+172 \(market location or MaBiS metering point\)/,
    );
  } finally {
    await s.close();
  }
});
