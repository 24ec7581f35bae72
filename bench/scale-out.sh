#!/usr/bin/env bash
# Scale-out: N = 1, 2, 4 API processes (`--role api` with API_PROCESSES=N, plus
# one `--role worker`), direct to PostgreSQL and through PgBouncer in transaction mode with 8 and
# 16 server connections; order creates and full order lists; the app alone (no baseline). Each run
# prints req/s, Node (+ PgBouncer) and PostgreSQL CPU per request and the PostgreSQL connections
# to the bench database. Short runs by default, for a shared machine: BENCH_DURATION=4
# BENCH_WARMUP=1. Usage: bash bench/scale-out.sh [N ...]   (default 1 2 4)
set -euo pipefail
cd "$(dirname "$0")/.."
processes=("${@:-1 2 4}")
read -r -a processes <<<"${processes[*]}"
for n in "${processes[@]}"; do
  for pool in 0 8 16; do
    printf '\n==> %s API process(es), %s\n' "$n" "$([[ $pool == 0 ]] && echo direct || echo "PgBouncer pool $pool")"
    BENCH_API_PROCESSES="$n" BENCH_POOLER="$pool" BENCH_BASELINE=0 BENCH_ENDPOINTS="${BENCH_ENDPOINTS:-list,create}" \
      BENCH_ROUNDS="${BENCH_ROUNDS:-1}" BENCH_DURATION="${BENCH_DURATION:-4}" BENCH_WARMUP="${BENCH_WARMUP:-1}" \
      npx tsx bench/run.ts | grep -E '^(round|\||pg|PgBouncer|Error)' || echo "(this configuration failed; the next one runs)"
  done
done
