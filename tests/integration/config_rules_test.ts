/**
 * A configuration that cannot be half right (docs/architecture.md, "Runtime configuration"):
 * `publish_target: sftp` needs host, user and a password or key — checked on every console change
 * (422 per missing field, nothing written) and on the environment at start; `config_changed`
 * events carry what changed from what to what, secrets as `********`.
 *
 * Real parts: the app on a temp-file KV over HTTP on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { loadSettings, SettingsError } from "../../lib/settings.ts";
import { call, startServer, storedEvents } from "../support/app.ts";
import { keysEnv, PROC } from "../support/keys.ts";

const headers = { "x-api-key": PROC, "content-type": "application/json" };

Deno.test("config: publish_target sftp without host, user and credential → 422 per field, nothing written", async () => {
  const s = await startServer(keysEnv());
  try {
    const put = (body: unknown) =>
      call(`${s.url}/v1/console/config`, { method: "PUT", headers, body: JSON.stringify(body) });
    const r = await put({ publish_target: "sftp", sftp_host: "sftp.example" });
    assert.equal(r.status, 422);
    const items = (r.body as { detail: { loc: unknown[]; msg: string; input: unknown }[] }).detail;
    assert.deepEqual(items.map((i) => i.loc), [["body", "sftp_username"], [
      "body",
      "sftp_password",
    ]]);
    assert.match(items[1].msg, /publish_target is sftp: set sftp_password or sftp_private_key/);
    const view = await call(`${s.url}/v1/console/config`, { headers });
    const fields = (view.body as { fields: Record<string, { value: unknown }> }).fields;
    assert.equal(fields.publish_target.value, "auto", "nothing was written");
    assert.equal(fields.sftp_host.value, null);

    const ok = await put({
      publish_target: "sftp",
      sftp_host: "sftp.example",
      sftp_username: "bridge",
      sftp_password: "correct-horse-battery",
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const event = (await storedEvents(s.kv)).find((e) => e.kind === "config_changed");
    const changes = (event?.data as { changes: { field: string; from: unknown; to: unknown }[] })
      .changes;
    // In the order of the configuration's fields.
    assert.deepEqual(changes, [
      { field: "sftp_host", from: null, to: "sftp.example" },
      { field: "sftp_username", from: null, to: "bridge" },
      { field: "sftp_password", from: null, to: "********" },
      { field: "publish_target", from: "auto", to: "sftp" },
    ]);
    assert.ok(!JSON.stringify(event).includes("correct-horse"), "the secret is not in the event");
    // Taking the password away again while sftp is the target: refused.
    const away = await put({ sftp_password: null });
    assert.equal(away.status, 422);
  } finally {
    await s.close();
  }
});

Deno.test("config: the environment is checked the same way at start, naming the variables", () => {
  assert.throws(
    () => loadSettings({ ...keysEnv(), PUBLISH_TARGET: "sftp", SFTP_HOST: "sftp.example" }),
    (err: unknown) => {
      assert.ok(err instanceof SettingsError);
      assert.match(err.message, /SFTP_USERNAME.*publish_target is sftp: set the sFTP user/s);
      assert.match(err.message, /SFTP_PASSWORD.*set sftp_password or sftp_private_key/s);
      return true;
    },
  );
});
