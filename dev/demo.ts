/**
 * `deno task demo`: starts the service on an embedded KV under `./data` with a freshly generated
 * process key, printed once. (The full day-ahead job joins this demo when the pipeline lands.)
 * @module
 */
import { encodeBase64Url } from "./base64url.ts";
import { start } from "../main.ts";

const key = encodeBase64Url(crypto.getRandomValues(new Uint8Array(24)));
const env = {
  ...Deno.env.toObject(),
  PROCESS_API_KEYS: `operator:${key}`,
  KV_PATH: Deno.env.get("KV_PATH") ?? "./data/demo.kv",
  HOSTNAME: Deno.env.get("HOSTNAME") ?? "127.0.0.1",
};
const server = await start(env);
const { hostname, port } = server.addr as Deno.NetAddr;
console.log(`
Scheduling bridge demo
  status:      curl -H 'X-API-Key: ${key}' http://${hostname}:${port}/v1/console/status
  process key: ${key}   (caller "operator"; shown only now)
  KV:          ${env.KV_PATH}
Stop with Ctrl-C.`);
