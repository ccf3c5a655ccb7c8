# Scheduling bridge — container image on the official Deno image.
# The KV store lives on a volume (/data); mount it so the event log, config overlay, orchestrator
# state and delivery-day state survive restarts. Secrets come from the environment at run time.
FROM denoland/deno:2.9.6

WORKDIR /app
COPY . .
# data/bdew/ (the BDEW profile tables) must be in the image: the forecast step reads them.
RUN test -f data/bdew/selp_series.csv \
  && deno install --frozen --entrypoint main.ts dev/build_console.ts \
  && deno task build \
  && mkdir -p /data && chown -R deno:deno /data /app

USER deno
ENV KV_PATH=/data/bridge.kv \
    OUTBOX_DIR=/data/outbox \
    PORT=8000 \
    HOSTNAME=0.0.0.0
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s CMD ["deno", "eval", "const r = await fetch('http://127.0.0.1:8000/health'); Deno.exit(r.ok ? 0 : 1)"]
CMD ["task", "start"]
