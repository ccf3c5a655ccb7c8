#!/usr/bin/env bash
# Online backup and restore of the service's KV store, a SQLite file (KV_PATH); see
# docs/backup.md. Needs Debian's sqlite3 (apt-get install sqlite3), or SQLITE3=/path/to/sqlite3.
#
#   deploy/backup.sh backup  <KV file> <backup file>    while the service runs
#   deploy/backup.sh restore <backup file> <KV file>    into a fresh path, service stopped
#
# backup: SQLite's online backup (`.backup`) of one read transaction of the live file, so the copy
# is the store as of one instant (every committed write up to it, including those still in the
# -wal file, nothing after it) while the service goes on writing. Written under a temporary name,
# checked (PRAGMA integrity_check, the KV tables), then renamed: a backup that exists is whole.
# restore: copies a backup to a path that holds no KV file yet, checks it the same way, renames.
# Exit status 0 on success, 1 on any failure (the reason on stderr), 2 on wrong usage.
set -euo pipefail

SQLITE3="${SQLITE3:-sqlite3}"
# How long to wait for a lock the service holds (ms): a write transaction, a WAL recovery.
BUSY_TIMEOUT_MS="${BACKUP_BUSY_TIMEOUT_MS:-10000}"
TMP=""

die() {
  echo "backup.sh: $*" >&2
  exit 1
}
usage() {
  echo "usage: $0 backup <KV file> <backup file> | restore <backup file> <KV file>" >&2
  exit 2
}
cleanup() {
  if [ -n "$TMP" ]; then rm -f -- "$TMP" "$TMP-wal" "$TMP-shm" "$TMP-journal"; fi
}
trap cleanup EXIT

need_sqlite3() {
  command -v "$SQLITE3" >/dev/null 2>&1 ||
    die "$SQLITE3 not found: install Debian's sqlite3 (apt-get install sqlite3) or set SQLITE3"
}

# A path sqlite3's dot-commands can take in quotes, and not a KV Connect URL.
check_path() {
  case "$1" in
  http://* | https://*) die "$1 is a KV Connect URL: back up that store with its own tools" ;;
  *"'"* | *$'\n'*) die "$1: a path with a quote or a newline is not supported" ;;
  "") usage ;;
  esac
}

# Prints the number of entries of a Deno KV SQLite file, or fails naming what is wrong (as `$2`).
kv_entries() {
  local file="$1" name="${2:-$1}" tables
  tables=$("$SQLITE3" -bail "$file" ".timeout $BUSY_TIMEOUT_MS" \
    "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('kv', 'data_version')" \
    2>&1) || die "$name is not a readable SQLite file: $tables"
  [ "$tables" = 2 ] || die "$name is a SQLite file but not a Deno KV store (no kv table)"
  "$SQLITE3" -bail "$file" ".timeout $BUSY_TIMEOUT_MS" "SELECT count(*) FROM kv"
}

# Fails unless the finished copy `$1` passes SQLite's integrity check.
verify() {
  local result
  result=$("$SQLITE3" -bail "$1" "PRAGMA integrity_check" 2>&1) ||
    die "checking the copy failed: $result"
  [ "$result" = ok ] || die "the copy failed SQLite's integrity check: $result"
}

backup() {
  local src="$1" dest="$2" out entries
  check_path "$src"
  check_path "$dest"
  [ -f "$src" ] || die "$src: no such KV file (the service's KV_PATH)"
  [ -r "$src" ] || die "$src: not readable by $(id -un) (run as the service's user)"
  [ ! -e "$dest" ] || die "$dest exists: choose a new name (a backup is never overwritten)"
  [ -d "$(dirname -- "$dest")" ] || die "$(dirname -- "$dest"): no such directory"
  kv_entries "$src" >/dev/null
  TMP="$dest.partial.$$"
  # One read transaction around the page copy: without it sqlite3 copies 100 pages per step in
  # separate transactions and starts over whenever the service wrote in between, which under
  # steady writes may never end. In WAL mode the reader blocks no writer.
  out=$("$SQLITE3" -bail "$src" ".timeout $BUSY_TIMEOUT_MS" "BEGIN" ".output /dev/null" \
    "SELECT count(*) FROM kv" ".output stdout" ".backup '$TMP'" "COMMIT" 2>&1) ||
    die "sqlite3 .backup of $src failed: $out"
  verify "$TMP"
  entries=$(kv_entries "$TMP")
  sync -- "$TMP" 2>/dev/null || sync
  mv -- "$TMP" "$dest"
  TMP=""
  echo "backup: $dest ($(stat -c %s -- "$dest") bytes, $entries KV entries) from $src"
}

restore() {
  local src="$1" dest="$2" entries
  check_path "$src"
  check_path "$dest"
  [ -f "$src" ] || die "$src: no such backup file"
  for f in "$dest" "$dest-wal" "$dest-shm"; do
    [ ! -e "$f" ] || die "$f exists: restore into a fresh path (stop the service, move the old store away)"
  done
  mkdir -p -- "$(dirname -- "$dest")" || die "cannot create $(dirname -- "$dest")"
  TMP="$dest.restoring.$$"
  cp -- "$src" "$TMP" || die "cannot copy $src to $TMP"
  entries=$(kv_entries "$TMP" "$src")
  verify "$TMP"
  sync -- "$TMP" 2>/dev/null || sync
  mv -- "$TMP" "$dest"
  TMP=""
  echo "restore: $dest ($entries KV entries) from $src; start the service with KV_PATH=$dest"
}

[ $# -eq 3 ] || usage
need_sqlite3
case "$1" in
backup) backup "$2" "$3" ;;
restore) restore "$2" "$3" ;;
*) usage ;;
esac
