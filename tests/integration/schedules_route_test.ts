/**
 * The schedule document of a day and control area over HTTP (docs/pipeline.md, "Schedules to the
 * TSO (Fahrplan)"): ESS and CIM from the latest aggregate with the BDEW file name; the message
 * version is 1 for the first aggregate and 2 once a newer one is sent, with the same message
 * identification; 404 in words before the first aggregate; 409 naming what is missing; and the
 * stored version never goes back.
 *
 * Real parts: the app on a temp-file KV over HTTP on 127.0.0.1, real market locations and
 * forecasts, the injected clock.
 */
import assert from "node:assert/strict";
import { XMLParser } from "fast-xml-parser";
import { scheduleVersion } from "../../lib/fahrplan/versions.ts";
import { call } from "../support/app.ts";
import {
  BEFORE_GC,
  DAY,
  portfolio,
  postForecast,
  proc,
  rig,
  step,
} from "../support/day_ahead_rig.ts";
import { PARTIES } from "../support/fahrplan.ts";
import { AREAS } from "../support/portfolio.ts";

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@" });

async function fetchDoc(url: string, area: string, format = "ess") {
  const res = await fetch(`${url}/v1/delivery-days/${DAY}/schedules/${area}?format=${format}`, {
    headers: proc,
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

Deno.test("schedule documents: ESS and CIM, BDEW file name, versions that only go up", async () => {
  const r = await rig(BEFORE_GC, {
    SENDER_EIC: PARTIES.sender,
    BALANCING_GROUP: PARTIES.balancingGroup,
  });
  try {
    await portfolio(r.s);
    const before = await fetchDoc(r.s.url, AREAS.amprion);
    assert.equal(before.status, 404);
    assert.match(before.text, /has not been aggregated yet; no schedule to show/);
    assert.equal((await step(r.s, DAY, "aggregate")).status, 200);

    // No counterparty configured: the document would be invalid and says why.
    const missing = await fetchDoc(r.s.url, AREAS.amprion);
    assert.equal(missing.status, 409);
    assert.match(missing.text, /counterparty/i);
    const put = await call(`${r.s.url}/v1/console/config`, {
      method: "PUT",
      headers: proc,
      body: JSON.stringify({ counterparty_eic: PARTIES.counterparty }),
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));

    const ess = await fetchDoc(r.s.url, AREAS.amprion);
    assert.equal(ess.status, 200, ess.text);
    assert.equal(ess.headers.get("content-type"), "application/xml; charset=utf-8");
    assert.equal(
      ess.headers.get("content-disposition"),
      `attachment; filename="20261123_TPS_${PARTIES.sender}_10XDE-RWENET---W_001_ESS.xml"`,
    );
    const m = xml.parse(ess.text).ScheduleMessage;
    assert.equal(m.MessageVersion["@v"], "1");
    assert.equal(m.ReceiverIdentification["@v"], "10XDE-RWENET---W");
    assert.equal(m.ScheduleTimeInterval["@v"], "2026-11-22T23:00Z/2026-11-23T23:00Z");
    const firstId = m.MessageIdentification["@v"];

    const cim = await fetchDoc(r.s.url, AREAS.amprion, "cim");
    assert.equal(cim.status, 200);
    // The same version in CIM is another file: its name says so.
    assert.equal(
      cim.headers.get("content-disposition"),
      `attachment; filename="20261123_TPS_${PARTIES.sender}_10XDE-RWENET---W_001_CIM.xml"`,
    );
    assert.equal(xml.parse(cim.text).Schedule_MarketDocument.revisionNumber, 1);

    // The version is stored when a document is sent; a newer aggregate then gives version 2,
    // with the same message identification.
    await scheduleVersion(r.s.kv, DAY, AREAS.amprion, 2, r.clock.now());
    await postForecast(r.s, 1, DAY, Array(96).fill(150));
    assert.equal((await step(r.s, DAY, "aggregate")).status, 200);
    const second = xml.parse((await fetchDoc(r.s.url, AREAS.amprion)).text).ScheduleMessage;
    assert.equal(second.MessageVersion["@v"], "2");
    assert.equal(second.MessageIdentification["@v"], firstId);
    // Asking for the older aggregate's version never goes back.
    const back = await scheduleVersion(r.s.kv, DAY, AREAS.amprion, 1, r.clock.now());
    assert.equal(back.message_version, 1);
    assert.equal(back.aggregate_version, 2);

    // An area that is not in the aggregate, a bad area, a bad format.
    assert.equal((await fetchDoc(r.s.url, "10YAT-APG------L")).status, 404);
    assert.equal((await fetchDoc(r.s.url, "nonsense")).status, 422);
    assert.equal((await fetchDoc(r.s.url, AREAS.amprion, "pdf")).status, 422);
  } finally {
    await r.close();
  }
});
