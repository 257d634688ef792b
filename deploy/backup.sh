#!/usr/bin/env bash
# Back up a league with `league backup` (database first, then the books' complete lines with their
# digests, then keys, replies, stamps, prices, asks, snapshots and the config). Run by
# systemd/league-backup.timer; keeps the newest KEEP backups (default 14).
# Usage: deploy/backup.sh /srv/league/config /backups
set -euo pipefail
config=${1:?config folder}; root=${2:?backups folder}; keep=${KEEP:-14}
league=${LEAGUE_BIN:-/srv/league/venv/bin/league}
dest="$root/league-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$root"
"$league" backup "$dest" --config "$config"
ls -1d "$root"/league-* | sort | head -n -"$keep" | xargs -r rm -rf --
