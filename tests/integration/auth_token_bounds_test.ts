/**
 * Bearer and stream tokens with bounded lifetimes (RFC 8725 §3.10, §3.11; RFC 9068 §4), on the
 * real app with a fake clock: `iat` in the future, lifetime over
 * `OIDC_MAX_TOKEN_LIFETIME_SECONDS`, date claims that are not whole seconds in 0…253402300799
 * (`1e400` parses to Infinity), non-canonical base64url segments, `OIDC_REQUIRE_AT_JWT`, a stream
 * token signed with the right key for a far expiry, and the start-up errors of the two variables.
 */
import assert from "node:assert/strict";
import { StreamTokens } from "../../lib/auth/stream_token.ts";
import { FakeClock } from "../../lib/clock.ts";
import { loadSettings, SettingsError } from "../../lib/settings.ts";
import { call, startServer } from "../support/app.ts";
import { b64url, type FakeJwks, startFakeJwks, type TokenClaims } from "../support/fake_jwks.ts";
import { PROC } from "../support/keys.ts";

const AUD = "https://bridge.test/api";
const T0 = Date.parse("2026-11-22T10:00:00Z");
const NOW = T0 / 1000;
const PROCESS = { scope: "process:run" };

/** A bridge trusting a fake JWKS, both on one fake clock standing at {@link T0}. */
async function withBridge(
  env: Record<string, string>,
  fn: (
    h: { jwks: FakeJwks; clock: FakeClock; status: (token: string) => Promise<[number, string]> },
  ) => Promise<void>,
) {
  const clock = new FakeClock(T0);
  const jwks = await startFakeJwks(AUD, { clock });
  const s = await startServer({
    OIDC_ISSUER: jwks.issuer,
    OIDC_JWKS_URL: jwks.jwksUrl,
    OIDC_AUDIENCE: AUD,
    RATE_LIMIT_PER_MINUTE: "0",
    ...env,
  }, { clock });
  const status = async (token: string): Promise<[number, string]> => {
    const r = await call(`${s.url}/v1/console/status`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return [r.status, r.status === 200 ? "" : String((r.body as { detail?: string }).detail)];
  };
  try {
    await fn({ jwks, clock, status });
  } finally {
    await s.close();
    await jwks.close();
  }
}

/** A token whose payload is exactly `payloadText` (e.g. with `1e400`), signed RS256. */
function rawToken(jwks: FakeJwks, payloadText: string): Promise<string> {
  return jwks.signSegments(b64url({ alg: "RS256", kid: jwks.kid }), b64url(payloadText));
}

const claimsText = (jwks: FakeJwks, extra: string) =>
  `{"iss":"${jwks.issuer}","aud":"${AUD}","scope":"process:run",${extra}}`;

Deno.test("bearer bounds: iat more than the 30 s leeway in the future → 401", async () => {
  await withBridge({}, async ({ jwks, status }) => {
    assert.deepEqual(await status(await jwks.sign({ ...PROCESS, iat: NOW + 30 })), [200, ""]);
    const ahead = await jwks.sign({ ...PROCESS, iat: NOW + 31, exp: NOW + 600 });
    for (let i = 0; i < 2; i++) { // refused again: a refused token is never cached
      const [code, detail] = await status(ahead);
      assert.equal(code, 401);
      assert.equal(
        detail,
        'The bearer token is not valid: token claim "iat" is 31 s in the future, more than the 30 s leeway.',
      );
    }
  });
});

Deno.test("bearer bounds: lifetime over OIDC_MAX_TOKEN_LIFETIME_SECONDS (default 86400) → 401", async () => {
  await withBridge({}, async ({ jwks, status }) => {
    assert.deepEqual(await status(await jwks.sign({ ...PROCESS, exp: NOW + 86400 })), [200, ""]);
    const [code, detail] = await status(await jwks.sign({ ...PROCESS, exp: NOW + 86401 }));
    assert.equal(code, 401);
    assert.match(
      detail,
      /token lifetime of 86401 s exceeds the maximum of 86400 s \(OIDC_MAX_TOKEN_LIFETIME_SECONDS\)/,
    );
  });
  await withBridge({ OIDC_MAX_TOKEN_LIFETIME_SECONDS: "600" }, async ({ jwks, status }) => {
    // exp − iat counts, even when little of it is left.
    const old = await jwks.sign({ ...PROCESS, iat: NOW - 1000, exp: NOW + 60 });
    const [code, detail] = await status(old);
    assert.equal(code, 401);
    assert.match(detail, /token lifetime of 1060 s exceeds the maximum of 600 s/);
    // Without iat: exp − now.
    const noIat = (exp: number) => jwks.sign({ ...PROCESS, iat: undefined, exp });
    assert.deepEqual(await status(await noIat(NOW + 600)), [200, ""]);
    const [code2, detail2] = await status(await noIat(NOW + 601));
    assert.equal(code2, 401);
    assert.match(detail2, /token lifetime of 601 s exceeds the maximum of 600 s/);
  });
});

Deno.test("bearer bounds: exp/nbf/iat must be whole seconds in 0…253402300799 (1e400 is Infinity)", async () => {
  await withBridge({}, async ({ jwks, status }) => {
    const range = (claim: string) =>
      `The bearer token is not valid: token claim "${claim}" is not a whole number of seconds from 0 to 253402300799.`;
    const cases: [string, string][] = [
      [`"exp":1e400`, "exp"],
      [`"iat":1e400,"exp":${NOW + 600}`, "iat"],
      [`"iat":${NOW},"exp":${NOW + 600}.5`, "exp"],
      [`"nbf":-1,"exp":${NOW + 600}`, "nbf"],
      [`"nbf":${NOW}.25,"exp":${NOW + 600}`, "nbf"],
      [`"iat":-5,"exp":${NOW + 600}`, "iat"],
      [`"exp":253402300800`, "exp"],
    ];
    for (const [extra, claim] of cases) {
      assert.deepEqual(await status(await rawToken(jwks, claimsText(jwks, extra))), [
        401,
        range(claim),
      ], extra);
    }
    // The same hand-made form with sane values is accepted.
    const good = claimsText(jwks, `"nbf":${NOW},"iat":${NOW},"exp":${NOW + 600}`);
    assert.deepEqual(await status(await rawToken(jwks, good)), [200, ""]);
  });
});

Deno.test("bearer bounds: a segment that is not canonical base64url → 401, even when signed", async () => {
  await withBridge({}, async ({ jwks, status }) => {
    const token = await jwks.sign(PROCESS);
    assert.deepEqual(await status(token), [200, ""]);
    const [h, p, sig] = token.split(".");
    // Same bits in the last character's unused low bits: decodes to the same bytes.
    const lastBitsFlipped = (seg: string) => {
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
      return seg.slice(0, -1) + alphabet[alphabet.indexOf(seg.at(-1)!) ^ 1];
    };
    const padded = (seg: string) => seg + "=".repeat((4 - (seg.length % 4)) % 4);
    assert.equal(sig.length % 4, 2, "an RS256-2048 signature leaves 4 unused bits");
    const reason = (n: number, name: string) =>
      `The bearer token is not valid: token segment ${n} (${name}) is not canonical base64url.`;
    for (
      const [bad, n, name] of [
        [`${h}.${p}.${padded(sig)}`, 3, "signature"],
        [`${h}.${p}.${lastBitsFlipped(sig)}`, 3, "signature"],
        [`${h}.${p}.${sig.slice(0, 100)}+${sig.slice(101)}`, 3, "signature"],
      ] as const
    ) {
      assert.deepEqual(await status(bad), [401, reason(n, name)], bad.slice(-8));
    }
    // Header and payload re-signed over their non-canonical text (the signature then matches);
    // JSON whitespace gives each a length with unused bits in its last character.
    const oddLength = (text: (fill: string) => string) => {
      for (let fill = "";; fill += " ") {
        const seg = b64url(text(fill));
        if (seg.length % 4 !== 0) return seg;
      }
    };
    const odd = [
      oddLength((f) => `{"alg":"RS256",${f}"kid":"${jwks.kid}"}`),
      oddLength((f) => claimsText(jwks, `${f}"iat":${NOW},"exp":${NOW + 600}`)),
    ];
    assert.deepEqual(await status(await jwks.signSegments(odd[0], odd[1])), [200, ""]);
    const variants: [string, string, number, string][] = [
      [padded(odd[0]), odd[1], 1, "header"],
      [lastBitsFlipped(odd[0]), odd[1], 1, "header"],
      [odd[0], padded(odd[1]), 2, "payload"],
      [odd[0], lastBitsFlipped(odd[1]), 2, "payload"],
    ];
    for (const [hh, pp, n, name] of variants) {
      assert.deepEqual(await status(await jwks.signSegments(hh, pp)), [401, reason(n, name)]);
    }
  });
});

Deno.test("bearer bounds: OIDC_REQUIRE_AT_JWT=true accepts only typ at+jwt (RFC 9068 §4)", async () => {
  const typed = (jwks: FakeJwks, typ?: string, c: TokenClaims = PROCESS) => jwks.sign(c, { typ });
  await withBridge({}, async ({ jwks, status }) => {
    assert.deepEqual(await status(await typed(jwks)), [200, ""], "default: typ may be absent");
    assert.deepEqual(await status(await typed(jwks, "JWT")), [200, ""]);
  });
  await withBridge({ OIDC_REQUIRE_AT_JWT: "true" }, async ({ jwks, status }) => {
    assert.deepEqual(await status(await typed(jwks, "at+jwt")), [200, ""]);
    assert.deepEqual(await status(await typed(jwks, "application/at+jwt")), [200, ""]);
    assert.deepEqual(await status(await typed(jwks, "JWT")), [
      401,
      'The bearer token is not valid: token type "JWT" is not accepted; OIDC_REQUIRE_AT_JWT requires "at+jwt" (RFC 9068 §4).',
    ]);
    assert.deepEqual(await status(await typed(jwks)), [
      401,
      'The bearer token is not valid: token has no type; OIDC_REQUIRE_AT_JWT requires "at+jwt" (RFC 9068 §4).',
    ]);
  });
});

Deno.test("stream bounds: a stream token signed with the right key but expiring in 2100 → 401", async () => {
  const clock = new FakeClock(T0);
  const s = await startServer({ PROCESS_API_KEYS: `ops:${PROC}`, RATE_LIMIT_PER_MINUTE: "0" }, {
    clock,
  });
  try {
    const far = new FakeClock(Date.parse("2100-01-01T00:00:00Z"));
    const forger = await StreamTokens.create([PROC], s.kv, far);
    const { token } = forger.issue();
    // Read the body only when refused (an accepted stream never ends).
    const res = await fetch(`${s.url}/v1/console/events/stream?token=${token}`);
    const detail = res.status === 200 ? (await res.body?.cancel(), "") : (await res.json()).detail;
    assert.deepEqual([res.status, detail], [
      401,
      "The stream token expires later than any token this service issues (300 s + 30 s leeway); get a new one from POST /v1/console/stream-token.",
    ]);
  } finally {
    await s.close();
  }
});

Deno.test("settings: OIDC_MAX_TOKEN_LIFETIME_SECONDS and OIDC_REQUIRE_AT_JWT are validated", () => {
  const base = { OIDC_ISSUER: "https://id.example", OIDC_AUDIENCE: "api://bridge" };
  const oidc = loadSettings(base).oidc!;
  assert.equal(oidc.maxTokenLifetimeSeconds, 86400);
  assert.equal(oidc.requireAtJwt, false);
  const set = loadSettings({
    ...base,
    OIDC_MAX_TOKEN_LIFETIME_SECONDS: "3600",
    OIDC_REQUIRE_AT_JWT: "true",
  }).oidc!;
  assert.equal(set.maxTokenLifetimeSeconds, 3600);
  assert.equal(set.requireAtJwt, true);
  const problem = (env: Record<string, string>) => {
    try {
      loadSettings({ ...base, ...env });
    } catch (err) {
      assert.ok(err instanceof SettingsError);
      return err.message;
    }
    assert.fail("expected a SettingsError");
  };
  for (const bad of ["0", "-5", "1.5", "abc", "1e3"]) {
    assert.match(
      problem({ OIDC_MAX_TOKEN_LIFETIME_SECONDS: bad }),
      /OIDC_MAX_TOKEN_LIFETIME_SECONDS: expected/,
      bad,
    );
  }
  assert.match(problem({ OIDC_REQUIRE_AT_JWT: "maybe" }), /OIDC_REQUIRE_AT_JWT/);
});
