/**
 * A real OpenID provider (`npm:oidc-provider` v9) for tests: listens on 127.0.0.1 (ephemeral
 * port), issues RS256 JWT access tokens through the client-credentials grant for one API
 * resource (RFC 8707 resource indicator = audience), and publishes its JWKS.
 *
 * oidc-provider ships no TypeScript types, so the few parts used here are typed locally.
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK } from "jose";

/** A real OpenID provider (npm:oidc-provider v9) on 127.0.0.1, port 0 (ephemeral), for tests. */
export interface TestIssuer {
  /** Issuer identifier, e.g. `"http://127.0.0.1:PORT"` (the exact `iss` value in tokens). */
  issuer: string;
  /** The provider's JWKS endpoint URL (full URL, from discovery). */
  jwksUrl: string;
  /** The API resource identifier tokens are issued for (the `aud` claim). */
  audience: string;
  /** Client-credentials grant: returns a JWT access token (RS256) for `audience` carrying the given space-separated scope. */
  token(scope: string): Promise<string>;
  /** Stops the provider and releases the listener and every connection. */
  close(): Promise<void>;
}

/** Scopes the API resource server accepts (requested scopes outside this set are dropped). */
const API_SCOPES = "forecast:write process:run";
const CLIENT_ID = "test-client";
const CLIENT_SECRET = "test-client-secret-that-is-long-enough";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** The subset of oidc-provider's `Provider` used here. */
interface OidcProvider {
  callback(): Handler;
}
type ProviderCtor = new (issuer: string, configuration: Record<string, unknown>) => OidcProvider;
interface OidcProviderModule {
  Provider: ProviderCtor;
  errors: { InvalidTarget: new (description?: string) => Error };
}

let modulePromise: Promise<OidcProviderModule> | undefined;

/**
 * Imports oidc-provider lazily, muting its import-time "Unsupported runtime" warning (it only
 * officially supports Node.js LTS; it works under Deno's node compatibility layer).
 */
function loadOidcProvider(): Promise<OidcProviderModule> {
  modulePromise ??= (async () => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (typeof args[0] === "string" && args[0].startsWith("oidc-provider WARNING")) return;
      warn(...args);
    };
    try {
      return (await import("oidc-provider")) as unknown as OidcProviderModule;
    } finally {
      console.warn = warn;
    }
  })();
  return modulePromise;
}

/** A tiny per-provider in-memory storage adapter (no timers; avoids the dev-adapter warning). */
function memoryAdapterFactory() {
  type Payload = Record<string, unknown> & { uid?: string; userCode?: string; grantId?: string };
  const store = new Map<string, { payload: Payload; expiresAt?: number }>();
  return class MemoryAdapter {
    #model: string;
    constructor(model: string) {
      this.#model = model;
    }
    #key(id: string): string {
      return `${this.#model}:${id}`;
    }
    #get(key: string): Payload | undefined {
      const entry = store.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
        store.delete(key);
        return undefined;
      }
      return entry.payload;
    }
    upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const expiresAt = typeof expiresIn === "number" ? Date.now() + expiresIn * 1000 : undefined;
      store.set(this.#key(id), { payload, expiresAt });
      return Promise.resolve();
    }
    find(id: string): Promise<Payload | undefined> {
      return Promise.resolve(this.#get(this.#key(id)));
    }
    findByUid(uid: string): Promise<Payload | undefined> {
      return Promise.resolve(this.#findBy((p) => p.uid === uid));
    }
    findByUserCode(userCode: string): Promise<Payload | undefined> {
      return Promise.resolve(this.#findBy((p) => p.userCode === userCode));
    }
    #findBy(pred: (p: Payload) => boolean): Payload | undefined {
      const prefix = `${this.#model}:`;
      for (const key of store.keys()) {
        if (!key.startsWith(prefix)) continue;
        const payload = this.#get(key);
        if (payload && pred(payload)) return payload;
      }
      return undefined;
    }
    consume(id: string): Promise<void> {
      const payload = this.#get(this.#key(id));
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      return Promise.resolve();
    }
    destroy(id: string): Promise<void> {
      store.delete(this.#key(id));
      return Promise.resolve();
    }
    revokeByGrantId(grantId: string): Promise<void> {
      for (const [key, { payload }] of store) {
        if (payload.grantId === grantId) store.delete(key);
      }
      return Promise.resolve();
    }
  };
}

/**
 * Starts a real oidc-provider on `http://127.0.0.1:<ephemeral port>` with one confidential client
 * (`client_secret_basic`, grant type `client_credentials` only) and one resource server
 * (`opts.audience`, default `"https://bridge.test/api"`) whose access tokens are RS256 JWTs
 * (`typ: "at+jwt"`) carrying `scope` (subset of `"forecast:write process:run"`).
 *
 * Needs `--allow-net` (listen + fetch on 127.0.0.1) and `--allow-env` (koa/depd read
 * `process.env` at import); tests normally run with `-A`.
 */
export async function startIssuer(opts: { audience?: string } = {}): Promise<TestIssuer> {
  const audience = opts.audience ?? "https://bridge.test/api";
  const { Provider, errors } = await loadOidcProvider();

  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const privateJwk: JWK = {
    ...(await exportJWK(privateKey)),
    kid: `test-rs256-${crypto.randomUUID()}`,
    alg: "RS256",
    use: "sig",
  };

  // Listen first: the issuer identifier must contain the ephemeral port.
  let handler: Handler = (_req, res) => {
    res.statusCode = 503;
    res.end();
  };
  const server: Server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  const closeServer = () =>
    new Promise<void>((resolve, reject) => {
      server.close((err) => (err ? reject(err) : resolve()));
      server.closeAllConnections();
    });

  try {
    const provider = new Provider(issuer, {
      adapter: memoryAdapterFactory(),
      jwks: { keys: [privateJwk] },
      clients: [{
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        grant_types: ["client_credentials"],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: "client_secret_basic",
        scope: API_SCOPES,
      }],
      scopes: ["openid", ...API_SCOPES.split(" ")],
      // Explicit TTL (the default function prints a "you SHOULD change it" notice).
      ttl: {
        ClientCredentials: (
          _ctx: unknown,
          token: { resourceServer?: { accessTokenTTL?: number } },
        ) => token.resourceServer?.accessTokenTTL ?? 600,
      },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        introspection: { enabled: false },
        revocation: { enabled: false },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => audience,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, resourceIndicator: string) => {
            if (resourceIndicator !== audience) {
              throw new errors.InvalidTarget(`unknown resource ${resourceIndicator}`);
            }
            return {
              scope: API_SCOPES,
              audience,
              accessTokenTTL: 600,
              accessTokenFormat: "jwt",
              jwt: { sign: { alg: "RS256", kid: privateJwk.kid } },
            };
          },
        },
      },
    });
    handler = provider.callback();

    const discovery = await fetchJson(`${issuer}/.well-known/openid-configuration`);
    const tokenEndpoint = String(discovery.token_endpoint);
    const jwksUrl = String(discovery.jwks_uri);
    const basic = `Basic ${btoa(`${CLIENT_ID}:${CLIENT_SECRET}`)}`;

    return {
      issuer,
      jwksUrl,
      audience,
      async token(scope: string): Promise<string> {
        const body = await fetchJson(tokenEndpoint, {
          method: "POST",
          headers: {
            authorization: basic,
            "content-type": "application/x-www-form-urlencoded",
          },
          body: new URLSearchParams({
            grant_type: "client_credentials",
            scope,
            resource: audience,
          }),
        });
        if (typeof body.access_token !== "string") {
          throw new Error(`token response without access_token: ${JSON.stringify(body)}`);
        }
        return body.access_token;
      },
      close: closeServer,
    };
  } catch (err) {
    await closeServer();
    throw err;
  }
}

/** Fetches JSON, always consuming the body (no leaked resources), throwing on non-2xx. */
async function fetchJson(url: string, init?: RequestInit): Promise<Record<string, unknown>> {
  const res = await fetch(url, init);
  const text = await res.text();
  if (!res.ok) throw new Error(`${init?.method ?? "GET"} ${url} -> ${res.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}
