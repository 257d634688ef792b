#!/usr/bin/env bash
# Back up a league's data folder: books first (complete lines only, with their digests), then the rest.
# Usage: deploy/backup.sh /srv/league/data /backups/league-$(date -u +%Y%m%dT%H%M%SZ)
set -euo pipefail
src=${1:?data folder}; dst=${2:?backup folder}
mkdir -p "$dst/books"
for book in "$src"/books/*.jsonl; do
  name=$(basename "$book")
  n=$(grep -c '' "$book" || true)                      # lines, including a torn last one
  tail -c1 "$book" | od -An -c | grep -q '\\n' || n=$((n - 1))   # a torn last line is not copied
  head -n "$n" "$book" > "$dst/books/$name"
  printf '%s: %s lines, sha256 %s\n' "$name" "$n" "$(sha256sum < "$dst/books/$name" | cut -d' ' -f1)" >> "$dst/books/DIGESTS"
done
for part in keys replies stamps prices asks snapshots bill-rates.json climatology.json; do
  [ -e "$src/$part" ] && cp -a "$src/$part" "$dst/"
done
echo "backup written to $dst"; cat "$dst/books/DIGESTS"
