#!/usr/bin/env bash
# Measures scan --records over many small partitions: the peak anonymous
# memory (RssAnon of /proc/PID/status, sampled every 10 ms: the heap and
# the detector's buffer, not the mapped segments) and the number of
# records files, and prints a Markdown table row per partition count.
#
#   testdata/perf/records-memory.sh ROOT [COUNTS]
#
# ROOT/p<N>/ is the output of
#   go run ./cmd/ksleuth-gen -out ROOT/p<N> -realistic <N*15800> -partitions <N>
# (about 22 KB of segments and 18 records per partition, seeded) and is
# generated first when missing. COUNTS defaults to "5000 50000". Linux only.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=${1:?usage: $0 ROOT [COUNTS]}
counts=${2:-5000 50000}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/ksleuth" ./cmd/ksleuth
go build -o "$bin/ksleuth-gen" ./cmd/ksleuth-gen
echo "| partitions | input | peak anonymous memory | records files | wall |"
echo "|---:|---:|---:|---:|---:|"
for n in $counts; do
	dir=$root/p$n
	[ -d "$dir" ] || "$bin/ksleuth-gen" -out "$dir" -realistic $((n * 15800)) -partitions "$n" >/dev/null
	out=$(mktemp -d)
	start=$(date +%s.%N)
	"$bin/ksleuth" scan --records --progress never --force --out "$out" "$dir" >/dev/null &
	pid=$!
	peak=0
	while kill -0 "$pid" 2>/dev/null; do
		v=$(awk '/^RssAnon/{print $2}' "/proc/$pid/status" 2>/dev/null || true)
		if [ -n "$v" ] && [ "$v" -gt "$peak" ]; then peak=$v; fi
		sleep 0.01
	done
	wait "$pid"
	wall=$(echo "$(date +%s.%N) - $start" | bc)
	files=$(find "$out/records" -name '*.parquet' | wc -l)
	bytes=$(du -sbL "$dir" | cut -f1)
	printf '| %d | %d MB | %d MiB | %d | %.1f s |\n' "$n" $((bytes / 1000000)) $((peak / 1024)) "$files" "$wall"
	rm -rf "$out"
done
