/**
 * The environment a child `deno` needs to run from the same caches as this process: a test that
 * starts `deno` with `clearEnv` (to control exactly what the service reads) passes these through,
 * so the child finds the modules and npm packages already downloaded, through the same registry
 * and certificates, instead of downloading into another cache (and printing "Download …" first).
 * Deno's variables: https://docs.deno.com/runtime/reference/env_variables/.
 * @module
 */

/**
 * Variables that tell Deno where its cache is (`DENO_DIR`, else `$XDG_CACHE_HOME/deno` or
 * `$HOME/.cache/deno`), where the npm registry is, and how to reach hosts (proxies, certificates).
 */
const DENO_VARIABLES = [
  "PATH",
  "HOME",
  "DENO_DIR",
  "XDG_CACHE_HOME",
  "DENO_AUTH_TOKENS",
  "DENO_CERT",
  "DENO_TLS_CA_STORE",
  "DENO_NO_UPDATE_CHECK",
  "NPM_CONFIG_REGISTRY",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
];

/** The {@link DENO_VARIABLES} set in this process, for a child's `env` with `clearEnv: true`. */
export function denoChildEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of DENO_VARIABLES) {
    const value = Deno.env.get(name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}
