/**
 * Read after write for the attention list of `GET /v1/console/status` (docs/console_attention.md,
 * "Read after write"): the list is cached for the second, and every change of what it is read from —
 * a day's state (steps, forecasts, the pipeline worker's aggregate), the TSO status, the schedule
 * history, a status request, a rejected answer file and its acknowledgement, the runtime config,
 * the orchestrator's state — is in the very next answer, on a fake clock that never moves. And the
 * list reads nothing from KV whose writes do not mark the inputs' generation.
 *
 * Real parts: the app on a temp-file KV over HTTP on 127.0.0.1 with a fake clock, the pipeline
 * worker, the outbox and inbox on disk, answer files in the structure of the real ESS samples.
 */
import assert from "node:assert/strict";
import { call } from "../support/app.ts";
import { attentionOf } from "../support/attention.ts";
import {
  BEFORE_GC,
  DAY,
  portfolio,
  postForecast,
  proc,
  rig,
  step,
} from "../support/day_ahead_rig.ts";
import { FILES_CHANNEL_ENV } from "../support/fahrplan.ts";
import { AREAS, maloId } from "../support/portfolio.ts";
import { cnfFile, TSO } from "../support/tso_answers.ts";
import { CONSOLE_INPUT_PREFIXES } from "../../lib/store/keys.ts";
import type { AttentionItem } from "../../lib/wire/attention.ts";

const attention = attentionOf;
const codes = (items: AttentionItem[]): string[] => items.map((i) => i.code);
const post = (url: string, path: string, body?: unknown) =>
  call(`${url}${path}`, {
    method: body === undefined ? "POST" : "PUT",
    headers: proc,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

Deno.test("attention: each write is in the next status answer within the same second", async () => {
  const r = await rig(BEFORE_GC, FILES_CHANNEL_ENV);
  const { url } = r.s;
  const inbox = `${r.dir}/inbox`;
  const start = r.clock.now();
  try {
    await post(url, "/v1/console/config", { schedule_inbox_dir: inbox });
    await portfolio(r.s);
    // A third location without forecast or profile: the aggregate leaves it missing.
    const third = await call(`${url}/v1/market-locations/${maloId(3)}`, {
      method: "PUT",
      headers: proc,
      body: JSON.stringify({ control_area: AREAS.amprion, direction: "consumption" }),
    });
    assert.equal(third.status, 201);
    assert.deepEqual(codes(await attention(url)), ["orchestrator_stopped", "not_sent_yet"]);

    // Day state and aggregate, written by the pipeline worker through its own store handle.
    assert.equal((await step(r.s, DAY, "aggregate")).status, 200);
    assert.deepEqual(codes(await attention(url)), [
      "orchestrator_stopped",
      "not_sent_yet",
      "missing_forecasts",
    ]);

    // Schedule history, TSO status and the submitted step.
    assert.equal((await step(r.s, DAY, "submit")).status, 200);
    let items = await attention(url);
    assert.ok(codes(items).includes("awaiting_answer"), codes(items).join());
    assert.match(items.find((i) => i.code === "awaiting_answer")!.message, /confirmed: 0 of 4/);

    // The TSO status, from an answer file.
    await Deno.mkdir(inbox, { recursive: true });
    await Deno.writeTextFile(`${inbox}/a.xml`, cnfFile(DAY, TSO.amprion, 1));
    assert.equal((await post(url, "/v1/schedule-responses/import")).status, 200);
    items = await attention(url);
    assert.match(items.find((i) => i.code === "awaiting_answer")!.message, /confirmed: 1 of 4/);

    // A file moved to rejected/ (the case of the issue), then acknowledged.
    await Deno.writeTextFile(`${inbox}/20261123_bad.xml`, "<not xml");
    const imported = await post(url, "/v1/schedule-responses/import");
    assert.equal((imported.body as { files: { outcome: string }[] }).files[0].outcome, "rejected");
    assert.ok(codes(await attention(url)).includes("rejected_answer"));
    const ack = await post(url, "/v1/schedule-responses/rejected/20261123_bad.xml/acknowledge");
    assert.equal(ack.status, 200);
    assert.ok(!codes(await attention(url)).includes("rejected_answer"));

    // A status request.
    const srq = await post(
      url,
      `/v1/delivery-days/${DAY}/schedules/${AREAS.tennet}/status-request`,
    );
    assert.equal(srq.status, 200, JSON.stringify(srq.body));
    assert.ok(codes(await attention(url)).includes("status_requested"));

    // New input after the schedule (the day's input version).
    await postForecast(r.s, 1, DAY, Array(96).fill(150));
    assert.ok(codes(await attention(url)).includes("schedule_outdated"));

    // The runtime config: an earlier TSO deadline makes the first version late.
    assert.equal(
      (await post(url, "/v1/console/config", { tso_deadline_local_time: "08:30" })).status,
      200,
    );
    assert.ok(codes(await attention(url)).includes("deadline_missed"));

    // The orchestrator's state.
    assert.equal((await post(url, "/v1/console/start")).status, 200);
    assert.ok(!codes(await attention(url)).includes("orchestrator_stopped"));
    assert.equal(r.clock.now(), start, "all within one second of the fake clock");
  } finally {
    await r.close();
  }
});

/** The first key part of what a read (get, getMany, list) asks for. */
function prefixesOf(prop: PropertyKey, args: unknown[]): string[] {
  if (prop === "get") return [String((args[0] as Deno.KvKey)[0])];
  if (prop === "getMany") return (args[0] as Deno.KvKey[]).map((k) => String(k[0]));
  if (prop === "list") {
    const sel = args[0] as { prefix?: Deno.KvKey; start?: Deno.KvKey };
    return [String((sel.prefix ?? sel.start ?? [])[0])];
  }
  return [];
}

Deno.test("attention: the list reads only what marks the inputs' generation", async () => {
  const read = new Set<string>();
  let recording = false;
  const recorder = (kv: Deno.Kv) =>
    new Proxy(kv, {
      get(target, prop) {
        const v = Reflect.get(target, prop);
        if (typeof v !== "function") return v;
        return (...args: unknown[]) => {
          if (recording) prefixesOf(prop, args).forEach((p) => read.add(p));
          return v.apply(target, args);
        };
      },
    });
  const r = await rig(BEFORE_GC, FILES_CHANNEL_ENV, undefined, undefined, { wrapKv: recorder });
  const { url } = r.s;
  const inbox = `${r.dir}/inbox`;
  try {
    await post(url, "/v1/console/config", { schedule_inbox_dir: inbox });
    await portfolio(r.s);
    assert.equal((await step(r.s, DAY, "aggregate")).status, 200);
    assert.equal((await step(r.s, DAY, "submit")).status, 200);
    await post(url, `/v1/delivery-days/${DAY}/schedules/${AREAS.tennet}/status-request`);
    await Deno.mkdir(inbox, { recursive: true });
    await Deno.writeTextFile(`${inbox}/20261123_bad.xml`, "<not xml");
    await post(url, "/v1/schedule-responses/import");
    // Every reading path of the list has data now: days, schedules, a request, a rejected file.
    const items = await attention(url);
    for (const code of ["awaiting_answer", "status_requested", "rejected_answer"]) {
      assert.ok(codes(items).includes(code), `${code} in ${codes(items).join()}`);
    }
    await postForecast(r.s, 1, DAY, Array(96).fill(150)); // a new generation: computed again
    recording = true;
    await attention(url);
    recording = false;
    // Read through caches whose object identity is part of the list's key (config, orchestrator
    // state, pass health) or not part of the list at all (the store's size facts).
    const keyedApart = ["config_overlay", "orchestrator", "orchestrator_passes", "retention"];
    const unmarked = [...read].filter((p) =>
      !CONSOLE_INPUT_PREFIXES.includes(p) && !keyedApart.includes(p)
    );
    assert.deepEqual(unmarked, [], `read but not marked: ${unmarked.join(", ")}`);
    for (const p of ["days", "tso_status", "status_request", "rejected_answers"]) {
      assert.ok(read.has(p), `the list was computed again (read ${[...read].join(", ")})`);
    }
  } finally {
    await r.close();
  }
});
