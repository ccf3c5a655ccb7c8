/**
 * A market platform whose TLS certificate the service does not trust: the real app (over HTTP on
 * 127.0.0.1, temp-file KV, fake clock) submits to the HTTPS simulator without its CA. The
 * certificate check fails in the TLS handshake (RFC 8446 §4.4.2), before any request is sent;
 * the 502 answer and the `orchestration_error` event name the certificate cause, the attempt is
 * not retried, and the claim is released so the next tick can try again. Also: what Deno's
 * `fetch` really throws for TLS and network failures, as the classifier reads it.
 */
import assert from "node:assert/strict";
import { startSimulator } from "../../dev/market_platform_simulator.ts";
import { classifyFetchFailure } from "../../lib/adapters/fetch_failure.ts";
import { MarketPlatformError, sendSchedules } from "../../lib/adapters/market_platform.ts";
import { call, startServer, storedEvents } from "../support/app.ts";
import { clockFor, env, flat, post, proc, register } from "../support/pipeline.ts";
import { AREAS, maloId } from "../support/portfolio.ts";
import { tempDir } from "../support/temp.ts";

const DAY = "2026-11-23";
const CAUSE = "invalid peer certificate: UnknownIssuer";
const MESSAGE = `market platform TLS handshake failed: ${CAUSE} (1 attempt, not retried)`;

Deno.test("submit: an untrusted platform certificate is named in the 502 and the event, and not retried", async () => {
  const sim = await startSimulator();
  await using tmp = await tempDir("bridge-tls-");
  const dir = tmp.path;
  const clock = clockFor(DAY);
  const s = await startServer({
    ...env,
    MARKET_PLATFORM_URL: sim.url,
    MARKET_PLATFORM_API_KEY: sim.apiKey,
    // No MARKET_PLATFORM_CA_FILE: the simulator's self-signed certificate is not trusted.
    MARKET_PLATFORM_BACKOFF_MS: "10",
    MARKET_PLATFORM_TIMEOUT_SECONDS: "5",
    BALANCING_GROUP: "11XDE-EXAMPLE--H",
    SENDER_EIC: "11XDE-EXAMPLE--H",
    OUTBOX_DIR: `${dir}/outbox`,
  }, { clock });
  try {
    await register(s, maloId(1), { control_area: AREAS.amprion, direction: "consumption" });
    const fc = await post(s, {
      market_location_id: maloId(1),
      delivery_day: DAY,
      unit: "kW",
      values: flat(96, 100),
    });
    assert.equal(fc.status, 200, JSON.stringify(fc.body));
    const agg = await call(`${s.url}/v1/delivery-days/${DAY}/aggregate`, {
      method: "POST",
      headers: proc,
    });
    assert.equal(agg.status, 200, JSON.stringify(agg.body));

    const sub = await call(`${s.url}/v1/delivery-days/${DAY}/submit`, {
      method: "POST",
      headers: proc,
    });
    assert.equal(sub.status, 502, JSON.stringify(sub.body));
    assert.equal(
      (sub.body as { detail: string }).detail,
      `Submission of ${DAY} failed: ${MESSAGE}`,
    );

    const errors = (await storedEvents(s.kv)).filter((e) =>
      e.kind === "orchestration_error" && e.delivery_day === DAY
    );
    assert.equal(errors.length, 1);
    assert.equal(errors[0].level, "error");
    assert.equal(
      errors[0].message,
      `Submitting the schedules of ${DAY} failed: Submission of ${DAY} failed: ${MESSAGE}`,
    );
    assert.deepEqual(errors[0].data, {
      step: "submit",
      code: "ERR_SUBMIT_FAILED",
      platform_status: null,
      platform_body: CAUSE,
      attempts: 1,
    });

    assert.equal(sim.requests(), 0, "no request got through the handshake");
    assert.equal(sim.submissions().length, 0);
    assert.equal(
      (await s.kv.get(["submissions", DAY, 1])).value,
      null,
      "the claim is released: the next tick tries again",
    );
  } finally {
    await s.close();
    await sim.close();
  }
});

/** The error `fetch` rejects with, or fails the test. */
async function fetchError(url: string, client?: Deno.HttpClient): Promise<unknown> {
  try {
    const res = await fetch(url, { method: "POST", body: "{}", client });
    await res.body?.cancel();
  } catch (err) {
    return err;
  }
  throw new Error(`fetch ${url} did not fail`);
}

Deno.test("classifyFetchFailure: Deno's real fetch errors; TLS failures are final, network errors named", async () => {
  const sim = await startSimulator();
  const other = await startSimulator();
  const wrongCa = Deno.createHttpClient({ caCerts: [other.caCert] });
  const ac = new AbortController();
  const plain = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen() {} },
    () => new Response("plain HTTP"),
  );
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closedPort = (closed.addr as Deno.NetAddr).port;
  closed.close();
  const dropper = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const dropping = (async () => {
    for await (const conn of dropper) conn.close();
  })().catch(() => {});
  try {
    const untrusted = await fetchError(`${sim.url}/schedules`);
    assert.equal((untrusted as Error).message, "fetch failed", "Deno hides the reason in `cause`");
    assert.deepEqual(classifyFetchFailure(untrusted), {
      kind: "tls",
      reason: "invalid peer certificate: UnknownIssuer",
    });
    assert.deepEqual(classifyFetchFailure(await fetchError(`${sim.url}/schedules`, wrongCa)), {
      kind: "tls",
      reason: "invalid peer certificate: BadSignature",
    });
    const plainHttps = `https://127.0.0.1:${plain.addr.port}/schedules`;
    assert.deepEqual(classifyFetchFailure(await fetchError(plainHttps)), {
      kind: "tls",
      reason: "received corrupt message of type InvalidContentType",
    });
    const refused = classifyFetchFailure(
      await fetchError(`https://127.0.0.1:${closedPort}/schedules`),
    );
    assert.equal(refused.kind, "network");
    assert.match(refused.reason, /^tcp connect error: Connection refused/); // (os error 111) on Linux
    const droppedUrl = `https://127.0.0.1:${(dropper.addr as Deno.NetAddr).port}/schedules`;
    assert.deepEqual(classifyFetchFailure(await fetchError(droppedUrl)), {
      kind: "network",
      reason: "tls handshake eof",
    }, "a connection closed mid-handshake may pass: retried");

    // A cycle in `cause` ends the walk.
    const a = new Error("outer");
    const b = new Error("inner", { cause: a });
    (a as { cause?: unknown }).cause = b;
    assert.deepEqual(classifyFetchFailure(a), { kind: "network", reason: "inner" });

    // sendSchedules: one attempt, final, within a generous budget (no backoff waits).
    const err = await sendSchedules(
      { url: `https://127.0.0.1:${plain.addr.port}`, apiKey: "k", timeoutSeconds: 30 },
      {
        delivery_day: "2026-11-23",
        aggregate_version: 1,
        sender_eic: null,
        balancing_group: null,
        resolution: "PT15M",
        unit: "MW",
        time_interval: { start: "", end: "" },
        schedules: [],
      },
      "2026-11-23-v1",
    ).catch((e) => e);
    assert.ok(err instanceof MarketPlatformError);
    assert.equal(
      err.message,
      "market platform TLS handshake failed: received corrupt message of type InvalidContentType (1 attempt, not retried)",
    );
    assert.equal(err.attempts, 1);
    assert.equal(err.retriable, false);
    assert.equal(err.status, null);
  } finally {
    wrongCa.close();
    dropper.close();
    await dropping;
    ac.abort();
    await plain.finished;
    await sim.close();
    await other.close();
  }
});
