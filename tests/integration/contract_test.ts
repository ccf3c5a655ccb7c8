/**
 * The OpenAPI document against the running service (docs/api.md, "The document"): every route of
 * the route table — iterated from the table, so a route added later cannot escape — is called on
 * the real app (temp-file KV, 127.0.0.1 port 0, the market-platform simulator over TLS) with valid
 * and invalid requests, and every answer is checked by Ajv (draft 2020-12) against the served
 * document: its status declared, its body valid for the declared schema, its declared headers
 * there and valid, no watched header undeclared. The route's own requests are the scenario of
 * tests/support/contract_cases.ts; the request path's refusals are made here for every route:
 * 401 without a credential, 403 with the external scope, 413 for a declared length over the
 * limit, 422 for each path parameter outside its pattern and for an unknown query parameter, 405
 * for a method its path does not declare, 429 over the rate limit, 503 when authentication is not
 * configured.
 */
import assert from "node:assert/strict";
import { startServer } from "../support/app.ts";
import { type Answer, Contract, type Document, rawAnswer } from "../support/contract.ts";
import { type Call, DEFAULTS, scenario } from "../support/contract_cases.ts";
import { BEFORE_GC, rig } from "../support/day_ahead_rig.ts";
import { PARTIES } from "../support/fahrplan.ts";
import { EXT, keysEnv, PROC } from "../support/keys.ts";
import {
  pathParamNames,
  pathParamOf,
  refusesUnknownQuery,
} from "../../lib/http/openapi_document.ts";
import { operationIdOf, type RouteSpec } from "../../lib/http/route_table.ts";
import { ensureBundle } from "../../lib/console/bundle.ts";

const routeOf = (s: RouteSpec) => `${s.method} ${s.path}`;

/** The concrete path of `route` with `params` (else the defaults, else the parameter's example). */
function pathOf(spec: RouteSpec, params: Record<string, string> = {}): string {
  return spec.path.replace(
    /\{(\w+)\}/g,
    (_, n: string) =>
      encodeURIComponent(params[n] ?? DEFAULTS[n] ?? pathParamOf(spec, n)?.example ?? "x"),
  );
}

/** Sends `call` to the route `spec` of the app at `url`; the answer as it came. */
async function send(url: string, spec: RouteSpec, call: Call): Promise<Answer> {
  const auth = call.auth ?? "process";
  const headers: Record<string, string> = {
    ...(auth === "none" ? {} : { "x-api-key": auth === "external" ? EXT : PROC }),
    ...(call.body !== undefined ? { "content-type": "application/json" } : {}),
    ...call.headers,
  };
  const res = await fetch(
    `${url}${pathOf(spec, call.params)}${call.query ? `?${call.query}` : ""}`,
    {
      method: spec.method.toUpperCase(),
      headers,
      body: call.body,
    },
  );
  let body = "";
  if (call.stream) await res.body?.cancel();
  else body = await res.text();
  return { status: res.status, headers: res.headers, body };
}

/** Loads the served document into a {@link Contract}. */
async function contractOf(url: string): Promise<Contract> {
  const res = await fetch(`${url}/v1/openapi.json`, { headers: { "x-api-key": EXT } });
  assert.equal(res.status, 200);
  return new Contract(await res.json() as Document);
}

Deno.test("contract: every schema of the document compiles; every path parameter is declared", async () => {
  const s = await startServer(keysEnv());
  try {
    const contract = await contractOf(s.url);
    assert.deepEqual(contract.compileComponents(), []);
    assert.ok(Object.keys(contract.doc.components.schemas).length > 30);
    const undeclared = s.bridge.ctx.routes.specs.flatMap((spec) =>
      pathParamNames(spec.path).filter((n) => !pathParamOf(spec, n))
        .map((n) => `${routeOf(spec)}: {${n}}`)
    );
    assert.deepEqual(undeclared, [], "declare them in PATH_PARAMS or the route's params");
  } finally {
    await s.close();
  }
});

Deno.test("contract: every route's answers to valid and invalid requests match the document", async () => {
  await ensureBundle();
  const r = await rig(BEFORE_GC, {
    SENDER_EIC: PARTIES.sender,
    BALANCING_GROUP: PARTIES.balancingGroup,
    COUNTERPARTY_EIC: PARTIES.counterparty,
    MAX_REQUEST_BYTES: "100000",
  });
  const problems: string[] = [];
  const driven = new Set<string>();
  try {
    const contract = await contractOf(r.s.url);
    const specs = r.s.bridge.ctx.routes.specs;
    const specOf = new Map(specs.map((s) => [routeOf(s), s]));
    const last = new Map<string, Answer>();
    const run = async (spec: RouteSpec, call: Call) => {
      const answer = await send(r.s.url, spec, call);
      const where = `${call.route}${call.query ? `?${call.query}` : ""}`;
      if (answer.status !== call.expect) {
        problems.push(`${where}: ${answer.status}, expected ${call.expect}: ${answer.body}`);
      }
      problems.push(...contract.check(spec.method, spec.path, answer));
      last.set(call.route, answer);
      if (answer.status < 400) driven.add(call.route);
    };
    for (const step of scenario(r, `${r.dir}/inbox`)) {
      const call = typeof step === "function" ? await step((route) => last.get(route)) : step;
      if (!call) continue;
      const spec = specOf.get(call.route);
      if (!spec) {
        problems.push(`${call.route}: no such route in the route table`);
        continue;
      }
      await run(spec, call);
    }
    // The request path's refusals, for every route of the table.
    for (const spec of specs) {
      const route = routeOf(spec);
      if (spec.access !== "open") await run(spec, { route, auth: "none", expect: 401 });
      if (spec.access === "process") await run(spec, { route, auth: "external", expect: 403 });
      for (const name of pathParamNames(spec.path)) {
        const p = pathParamOf(spec, name);
        if (p?.pattern) await run(spec, { route, params: { [name]: "bad!" }, expect: p.refused });
      }
      if (refusesUnknownQuery(spec)) {
        await run(spec, { route, query: "unknown_parameter=1", expect: 422 });
      }
      const head = `${spec.method.toUpperCase()} ${pathOf(spec)} HTTP/1.1\r\n` +
        "Host: 127.0.0.1\r\nContent-Length: 100001\r\nConnection: close\r\n\r\n";
      const tooLarge = await rawAnswer(r.s.url, head);
      if (tooLarge.status !== 413) problems.push(`${route}: ${tooLarge.status} to 100001 bytes`);
      problems.push(...contract.check(spec.method, spec.path, tooLarge));
    }
    // A method a path does not declare.
    for (const path of new Set(specs.map((s) => s.path))) {
      const declared = specs.filter((s) => s.path === path).map((s) => s.method);
      const other = (["post", "put", "delete", "patch"] as const).find((m) =>
        !declared.includes(m)
      )!;
      const spec = { ...specs.find((s) => s.path === path)!, method: other };
      const answer = await send(r.s.url, spec, { route: `${other} ${path}`, expect: 405 });
      if (answer.status !== 405) problems.push(`${other} ${path}: ${answer.status}, expected 405`);
      problems.push(...contract.check(other, path, answer));
    }
    for (const route of specs.map(routeOf).filter((route) => !driven.has(route))) {
      problems.push(
        `${route}: no successful request in the scenario (tests/support/contract_cases.ts)`,
      );
    }
  } finally {
    await r.close();
  }
  assert.deepEqual(problems, []);
});

Deno.test("contract: 429 over the rate limit and 503 without authentication, on every route", async () => {
  const limited = await startServer(keysEnv({ RATE_LIMIT_PER_MINUTE: "1", RATE_LIMIT_BURST: "1" }));
  const closed = await startServer({});
  const problems: string[] = [];
  try {
    const contract = await contractOf(limited.url);
    const specs = limited.bridge.ctx.routes.specs.filter((s) => s.access !== "open");
    const check = async (url: string, spec: RouteSpec, call: Call) => {
      const answer = await send(url, spec, call);
      if (answer.status !== call.expect) {
        problems.push(`${call.route}: ${answer.status}, expected ${call.expect}`);
      }
      problems.push(...contract.check(spec.method, spec.path, answer));
    };
    // The process caller spends its one request of the minute.
    await fetch(`${limited.url}/health`, { headers: { "x-api-key": PROC } }).then((x) =>
      x.body?.cancel()
    );
    const spent = await fetch(`${limited.url}/v1/console/status`, {
      headers: { "x-api-key": PROC },
    });
    await spent.body?.cancel();
    for (const spec of specs) {
      const route = routeOf(spec);
      // The stream's limit is on failed tokens of an address (the others' on the caller).
      const auth = spec.access === "stream" ? "none" : "process";
      if (spec.access === "stream") await send(limited.url, spec, { route, auth, expect: 401 });
      await check(limited.url, spec, { route, auth, expect: 429 });
      await check(closed.url, spec, { route, expect: 503 });
    }
    assert.ok(specs.length > 30, `${specs.length} routes`);
    assert.ok(specs.every((s) => operationIdOf(s)), "every route has an operationId");
  } finally {
    await limited.close();
    await closed.close();
  }
  assert.deepEqual(problems, []);
});
