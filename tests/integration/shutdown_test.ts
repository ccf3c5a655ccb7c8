/**
 * Stopping the service with open consoles (docs/architecture.md, "Event log and live stream"):
 * on SIGTERM every live stream gets its last message (`event: stream_end`) and closes, the
 * service stops taking requests and the process exits within 5 s, also with two open streams.
 * A real `main.ts` process and real streams over loopback.
 */
import assert from "node:assert/strict";
import { PROC } from "../support/keys.ts";
import { spawnService } from "../support/service_process.ts";
import { openSse } from "../support/sse.ts";

Deno.test({
  name: "SIGTERM ends every open live stream with stream_end and exits within 5 s",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const svc = await spawnService({ PROCESS_API_KEYS: `ops:${PROC}` });
  let exited = false;
  try {
    const open = async () => {
      const res = await fetch(`${svc.url}/v1/console/stream-token`, {
        method: "POST",
        headers: { "x-api-key": PROC },
      });
      assert.equal(res.status, 200);
      const { token } = await res.json();
      const sse = await openSse(`${svc.url}/v1/console/events/stream?token=${token}`);
      assert.equal(sse.status, 200);
      const first = await sse.read((all) => all.some((m) => m.retry !== undefined));
      assert.equal(first[0].retry, 3000);
      return sse;
    };
    const streams = [await open(), await open()];

    const t0 = performance.now();
    svc.kill("SIGTERM");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const status = await Promise.race([
      svc.exited,
      new Promise<null>((res) => timer = setTimeout(() => res(null), 5_000)),
    ]);
    clearTimeout(timer);
    const tookMs = performance.now() - t0;
    assert.ok(status, "the process did not exit within 5 s of SIGTERM");
    exited = true;
    assert.equal(status.code, 0, svc.output().stderr);
    assert.ok(tookMs < 5_000, `exit took ${tookMs} ms`);

    for (const sse of streams) {
      const all = await sse.read(() => false, 500);
      const last = all[all.length - 1];
      assert.equal(last.event, "stream_end", JSON.stringify(all));
      assert.equal(last.id, undefined, "the last message moves no resume point");
      assert.match(JSON.parse(last.data!).message, /The service is stopping/);
      await sse.close().catch(() => {});
    }
    assert.match(svc.output().stdout, /"kind":"shutdown"/);
    // No more requests are taken.
    await assert.rejects(fetch(`${svc.url}/health`));
  } finally {
    if (!exited) svc.kill("SIGKILL");
    await svc.close();
  }
});
