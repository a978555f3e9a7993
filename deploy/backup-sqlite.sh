#!/bin/sh
# An online backup of a running gateway's SQLite database: a consistent copy taken while
# the gateway serves (SQLite's backup API, through the sqlite3 shell), checked before it is
# kept. Usage: deploy/backup-sqlite.sh /var/lib/hookgate/hookgate.db /backups/hookgate-$(date +%F).db
set -eu
db="$1"
out="$2"
tmp="$out.partial"
rm -f "$tmp"
# .timeout waits (up to 10 s) while the gateway holds the write lock.
sqlite3 "$db" ".timeout 10000" ".backup '$tmp'"
test "$(sqlite3 "$tmp" 'PRAGMA integrity_check;')" = "ok"
mv "$tmp" "$out"
echo "backed up $db to $out ($(sqlite3 "$out" 'SELECT COUNT(*) FROM hookgate_orders;') orders)"
