/**
 * The actuals inbox (docs/settlement.md, "Inbox"): an orchestrator pass imports every file that
 * landed in `ACTUALS_INBOX_DIR` — the real MSCONS interchange (in ISO 8859-1, as its `UNOC` says),
 * the real reBAP file, ID AEP in the data service's layout, a CSV — moves
 * them to processed/, and moves a bad one to rejected/ with its reason (a file beside it and a
 * warning event); nothing of a bad file is stored.
 */
import assert from "node:assert/strict";
import { call, startServer, storedEvents } from "../support/app.ts";
import { EXT, PROC } from "../support/keys.ts";
import { tempDir } from "../support/temp.ts";
import { actualsOfDay } from "../../lib/settlement/actuals_store.ts";
import { pricesOfDay } from "../../lib/settlement/prices_store.ts";
import { idAepOfDay } from "../../lib/settlement/id_aep_store.ts";

const FIX = new URL("../fixtures/", import.meta.url);
const MULTI = Deno.readTextFileSync(new URL("mscons/MSCONS_TL_Multiple_LOC_SAMPLE.txt", FIX));
const REBAP = Deno.readTextFileSync(new URL("rebap/reBAP_2027-03_synthetic.csv", FIX));
const ID_AEP = Deno.readTextFileSync(
  new URL("rebap/ID-AEP_2027-03_synthetic_datenservice.csv", FIX),
);

Deno.test("actuals inbox: an orchestrator pass imports what landed; bad files to rejected/ with the reason", async () => {
  await using tmp = await tempDir("bridge-actuals-inbox-");
  const inbox = `${tmp.path}/in`;
  await Deno.mkdir(inbox);
  const s = await startServer({
    PROCESS_API_KEYS: `ops:${PROC}`,
    EXTERNAL_API_KEYS: `acme:${EXT}`,
    RATE_LIMIT_PER_MINUTE: "0",
    ACTUALS_INBOX_DIR: inbox,
    SCHEDULE_INBOX_DIR: `${tmp.path}/tso`,
    OUTBOX_DIR: `${tmp.path}/out`,
    ORCHESTRATOR_AUTOSTART: "false",
    ORCHESTRATOR_HORIZON_DAYS: "1",
  });
  try {
    for (const id of ["51481308448", "51481308456"]) {
      const r = await call(`${s.url}/v1/market-locations/${id}`, {
        method: "PUT",
        headers: { "x-api-key": EXT },
        body: JSON.stringify({ control_area: "10YDE-RWENET---I", direction: "consumption" }),
      });
      assert.equal(r.status, 201);
    }
    // As a DSO writes it: UNB+UNOC, one byte per character ("ü" = 0xFC, no UTF-8).
    const named = MULTI.replace(/(NAD\+MS[^']*')/, "$1CTA+IC+:Stadtwerke München'");
    await Deno.writeFile(`${inbox}/a_mscons.edi`, Uint8Array.from(named, (c) => c.charCodeAt(0)));
    await Deno.writeTextFile(`${inbox}/b_rebap.csv`, REBAP);
    await Deno.writeTextFile(
      `${inbox}/c_actuals.csv`,
      "market_location_id,start,kwh\n51481308448,2022-04-01T00:00:00+02:00,3.5\n",
    );
    await Deno.writeTextFile(
      `${inbox}/d_unknown.csv`,
      "market_location_id,start,kwh\n51238696781,2022-04-01T00:00:00+02:00,3.5\n",
    );
    await Deno.writeTextFile(`${inbox}/e_junk.txt`, "hello");
    await Deno.writeTextFile(`${inbox}/b_id_aep.csv`, ID_AEP);
    const bad = named.replace("LOC+172+51481308448", "LOC+999+Zählpunkt Süd");
    await Deno.writeFile(`${inbox}/f_bad.edi`, Uint8Array.from(bad, (c) => c.charCodeAt(0)));

    const r = await call(`${s.url}/v1/orchestrate`, {
      method: "POST",
      headers: { "x-api-key": PROC },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const names = (dir: string) => [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assert.deepEqual(names(`${inbox}/processed`), [
      "a_mscons.edi",
      "b_id_aep.csv",
      "b_rebap.csv",
      "c_actuals.csv",
    ]);
    assert.deepEqual(names(`${inbox}/rejected`), [
      "d_unknown.csv",
      "d_unknown.csv.reason.txt",
      "e_junk.txt",
      "e_junk.txt.reason.txt",
      "f_bad.edi",
      "f_bad.edi.reason.txt",
    ]);
    // The reason quotes the segment in its own characters.
    assert.match(
      await Deno.readTextFile(`${inbox}/rejected/f_bad.edi.reason.txt`),
      /\(LOC\+999\+Zählpunkt Süd\): expected LOC\+172/,
    );
    assert.match(
      await Deno.readTextFile(`${inbox}/rejected/d_unknown.csv.reason.txt`),
      /line 2: market location 51238696781 is not registered here/,
    );
    assert.match(
      await Deno.readTextFile(`${inbox}/rejected/e_junk.txt.reason.txt`),
      /not recognised/,
    );
    assert.equal((await actualsOfDay(s.kv, "2022-03-15")).size, 2);
    assert.equal((await actualsOfDay(s.kv, "2022-04-01")).get("51481308448")!.kwh[0], 3.5);
    assert.equal((await pricesOfDay(s.kv, "2027-03-28"))!.short.length, 92);
    assert.equal((await idAepOfDay(s.kv, "2027-03-16"))!.price[60], null);
    const rejected = (await storedEvents(s.kv)).filter((e) =>
      e.kind === "settlement_input_rejected"
    );
    assert.equal(rejected.length, 3);
    assert.match(
      String(rejected[0].message),
      /The file d_unknown\.csv in the inbox .* was not imported: line 2/,
    );
  } finally {
    await s.close();
  }
});
