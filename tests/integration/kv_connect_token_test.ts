/**
 * The KV Connect access token (`DENO_KV_ACCESS_TOKEN`) is a secret like the API keys
 * (docs/access-control.md, "Secrets"): a text that quotes it is masked in the answer and in the
 * stored event.
 */
import assert from "node:assert/strict";
import { call, startServer, storedEvents } from "../support/app.ts";
import { env, ext } from "../support/pipeline.ts";
import { leakedPart } from "../support/leaks.ts";
import { location } from "../support/profile_portfolio.ts";

Deno.test("DENO_KV_ACCESS_TOKEN quoted in a request is masked in the answer and the events", async () => {
  const token = "kv-connect-token-9f3a61c2d7e84b05";
  const s = await startServer({ ...env, DENO_KV_ACCESS_TOKEN: token });
  try {
    const { malo_id, ...body } = location(1);
    const r = await call(`${s.url}/v1/market-locations/${malo_id}`, {
      method: "PUT",
      headers: ext,
      body: JSON.stringify({ ...body, name: `park ${token}` }),
    });
    assert.equal(r.status, 201);
    const answer = JSON.stringify(r.body);
    assert.match(answer, /park \*\*\*\*\*\*\*\*/);
    assert.equal(leakedPart(answer, token), undefined, `the answer leaks the token: ${answer}`);
    const events = JSON.stringify(await storedEvents(s.kv));
    assert.equal(leakedPart(events, token), undefined, "an event leaks the token");
  } finally {
    await s.close();
  }
});
