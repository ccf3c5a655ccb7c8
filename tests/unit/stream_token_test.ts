import assert from "node:assert/strict";
import { StreamTokens } from "../../lib/auth/stream_token.ts";
import { FakeClock } from "../../lib/clock.ts";
import { withKv } from "../support/temp.ts";

Deno.test("stream token: valid for 300 s, then expired", () =>
  withKv(async (kv) => {
    const clock = new FakeClock(Date.parse("2026-11-22T10:00:00Z"));
    const t = await StreamTokens.create(["proc-secret-0001-aaaaaaaa"], kv, clock);
    const { token, expires_in } = t.issue();
    assert.equal(expires_in, 300);
    assert.equal(t.verify(token), "ok");
    clock.advance(299_000);
    assert.equal(t.verify(token), "ok");
    clock.advance(1_000);
    assert.equal(t.verify(token), "expired");
  }));

Deno.test("stream token: tampered, an API key, non-ASCII → invalid", () =>
  withKv(async (kv) => {
    const clock = new FakeClock();
    const t = await StreamTokens.create(["proc-secret-0001-aaaaaaaa"], kv, clock);
    const { token } = t.issue();
    const [exp, mac] = token.split(".");
    assert.equal(t.verify(`${Number(exp) + 1000}.${mac}`), "invalid");
    const flipped = mac[0] === "A" ? "B" + mac.slice(1) : "A" + mac.slice(1);
    assert.equal(t.verify(`${exp}.${flipped}`), "invalid");
    assert.equal(t.verify("proc-secret-0001-aaaaaaaa"), "invalid");
    assert.equal(t.verify(`${exp}.${mac.slice(0, -1)}é`), "invalid");
    assert.equal(t.verify(""), "invalid");
  }));

Deno.test("stream token: two instances with the same process keys accept each other's", () =>
  withKv(async (kv) => {
    const clock = new FakeClock();
    const a = await StreamTokens.create(["k2-secret-000000000", "k1-secret-000000000"], kv, clock);
    const b = await StreamTokens.create(["k1-secret-000000000", "k2-secret-000000000"], kv, clock);
    const other = await StreamTokens.create(["k3-secret-000000000"], kv, clock);
    const { token } = a.issue();
    assert.equal(b.verify(token), "ok");
    assert.equal(other.verify(token), "invalid");
  }));

Deno.test("stream token: OIDC-only deployments share one random key through KV", () =>
  withKv(async (kv) => {
    const clock = new FakeClock();
    const a = await StreamTokens.create([], kv, clock);
    const b = await StreamTokens.create([], kv, clock);
    assert.equal(b.verify(a.issue().token), "ok");
  }));

Deno.test("stream token: signed with the right key but expiring beyond now + 300 s + 30 s → refused", () =>
  withKv(async (kv) => {
    const t0 = Date.parse("2026-11-22T10:00:00Z");
    const clock = new FakeClock(t0);
    const secrets = ["proc-secret-0001-aaaaaaaa"];
    const verifier = await StreamTokens.create(secrets, kv, clock);
    // Whoever holds the key (a replica, a leaked key) signs a token for the year 2100.
    const forger = await StreamTokens.create(secrets, kv, new FakeClock(Date.parse("2100-01-01")));
    assert.equal(verifier.verify(forger.issue().token), "beyond_lifetime");
    // A replica whose clock runs ahead by up to the 30 s leeway is still accepted …
    const ahead = new FakeClock(t0 + 30_000);
    const replica = await StreamTokens.create(secrets, kv, ahead);
    assert.equal(verifier.verify(replica.issue().token), "ok");
    // … one more second is refused.
    ahead.advance(1_000);
    assert.equal(verifier.verify(replica.issue().token), "beyond_lifetime");
    // A tampered far-future token stays "invalid" (the signature is checked first).
    const [exp, mac] = forger.issue().token.split(".");
    const flipped = mac[0] === "A" ? "B" + mac.slice(1) : "A" + mac.slice(1);
    assert.equal(verifier.verify(`${exp}.${flipped}`), "invalid");
  }));
