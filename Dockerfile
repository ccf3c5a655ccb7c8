# Scheduling bridge — container image on the official Deno image.
# The KV store lives on a volume (/data); mount it so the event log, config overlay, orchestrator
# state and delivery-day state survive restarts. Secrets come from the environment at run time.
# The archive of pruned delivery days and events (ARCHIVE_DIR) is a volume of its own (/archive):
# it only grows, so it may live on other storage than the KV file. sqlite3 is in the image for
# deploy/backup.sh (online backup of the KV file, docs/backup.md).
FROM denoland/deno:2.9.6

WORKDIR /app
COPY . .
# data/bdew/ (the BDEW profile tables) must be in the image: the forecast step reads them; so must
# data/xsd/ (ENTSO-E's CIM schemas): every CIM document is checked against them both ways.
RUN apt-get update -qq \
  && apt-get install -y -qq --no-install-recommends sqlite3 \
  && rm -rf /var/lib/apt/lists/* \
  && test -f data/bdew/selp_series.csv \
  && test -f data/xsd/entsoe-cim/urn-entsoe-eu-wgedi-codelists.xsd \
  && deno install --frozen --entrypoint main.ts dev/build_console.ts \
  && deno task build \
  && mkdir -p /data /archive && chown -R deno:deno /data /archive /app

USER deno
ENV KV_PATH=/data/bridge.kv \
    OUTBOX_DIR=/data/outbox \
    ARCHIVE_DIR=/archive \
    PORT=8000 \
    HOSTNAME=0.0.0.0
# Prometheus metrics without credentials on a listener of their own (off unless METRICS_PORT is
# set; GET /metrics on PORT needs a process credential either way). To scrape from outside the
# container, set both:
# ENV METRICS_PORT=9464 METRICS_HOSTNAME=0.0.0.0
VOLUME ["/data", "/archive"]
EXPOSE 8000 9464
HEALTHCHECK --interval=30s --timeout=3s CMD ["deno", "eval", "const r = await fetch('http://127.0.0.1:8000/health'); Deno.exit(r.ok ? 0 : 1)"]
CMD ["task", "start"]
