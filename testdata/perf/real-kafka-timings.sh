#!/usr/bin/env bash
# Times kafka-dump-log --deep-iteration --print-data-log against
# ksleuth dump --records --payload, ksleuth scan and ksleuth scan --jobs 1
# on segments a real broker wrote, one per codec, and prints a Markdown
# table of the medians (CPU-seconds = user + sys, and wall) to stdout.
#
#   testdata/perf/real-kafka-timings.sh ROOT [BYTES]
#
# ROOT/<codec>/ is the output of
#   go run ./cmd/ksleuth-gen real --scenario bulk --codec <codec> --bytes BYTES --out ROOT/<codec>
# and is generated first when missing (BYTES defaults to 1 GiB). REPS
# (default 3) runs per command, interleaved; CODECS narrows the codecs.
# Outputs go to /dev/null (scan's tables to a temp dir, removed after
# each run). Needs java, /usr/bin/time, and the Kafka cache of ksleuth-gen.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=${1:?usage: $0 ROOT [BYTES]}
bytes=${2:-1073741824}
reps=${REPS:-3}
codecs=${CODECS:-none gzip snappy lz4 zstd}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/ksleuth" ./cmd/ksleuth
go build -o "$bin/ksleuth-gen" ./cmd/ksleuth-gen
classpath=$("$bin/ksleuth-gen" real --classpath)
# kafka-dump-log.sh runs the tool through kafka-run-class.sh, whose
# default heap and JVM options these are.
jvm=(-Xmx256M -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35
	-XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true -cp "$classpath")

for c in $codecs; do
	[ -f "$root/$c/bulk.json" ] ||
		"$bin/ksleuth-gen" real --scenario bulk --codec "$c" --bytes "$bytes" --out "$root/$c" >&2
done

# run NAME CMD...: one timed run, appended to $bin/NAME as "cpu wall".
run() {
	local name=$1
	shift
	/usr/bin/time -f '%U %S %e' -o "$bin/t" "$@" >/dev/null 2>"$bin/err" || {
		cat "$bin/err" >&2
		return 1
	}
	awk '{ printf "%.2f %.2f\n", $1 + $2, $3 }' "$bin/t" >>"$bin/$name"
}

# median FILE COLUMN
median() { cut -d' ' -f"$2" "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

kafka=$(sed -n 's/.*"kafka_version": "\(.*\)".*/\1/p' "$root/$(set -- $codecs; echo "$1")/bulk.json")
echo "Kafka $kafka, $(nproc) cores, medians of $reps runs; CPU-s = user + sys"
echo
echo "| codec | segment | records | command | CPU-s | wall s | MB/CPU-s | kafka-dump-log CPU / this |"
echo "|---|---:|---:|---|---:|---:|---:|---:|"

# Each codec's rows are printed once its runs are done, so an interrupted
# run still has the codecs it finished.
tools=(kafka-dump-log ksleuth-dump ksleuth-scan ksleuth-scan-j1)
for c in $codecs; do
	part="$root/$c/broker-1/data/bulk-0"
	seg="$part/00000000000000000000.log"
	cat "$part"/* >/dev/null # into the page cache: every run reads from memory
	for rep in $(seq "$reps"); do
		echo "== $c run $rep of $reps" >&2
		run "$c.kafka-dump-log" java "${jvm[@]}" org.apache.kafka.tools.DumpLogSegments \
			--deep-iteration --print-data-log --files "$seg"
		run "$c.ksleuth-dump" "$bin/ksleuth" dump --records --payload "$seg"
		rm -rf "$bin/out"
		run "$c.ksleuth-scan" "$bin/ksleuth" scan --progress never --out "$bin/out" "$part"
		rm -rf "$bin/out"
		run "$c.ksleuth-scan-j1" "$bin/ksleuth" scan --jobs 1 --progress never --out "$bin/out" "$part"
		rm -rf "$bin/out"
	done
	size=$(stat -c %s "$seg")
	records=$(sed -n 's/.*"records": \([0-9]*\).*/\1/p' "$root/$c/bulk.json")
	base=$(median "$bin/$c.kafka-dump-log" 1)
	for tool in "${tools[@]}"; do
		cpu=$(median "$bin/$c.$tool" 1)
		wall=$(median "$bin/$c.$tool" 2)
		awk -v c="$c" -v s="$size" -v r="$records" -v t="$tool" -v cpu="$cpu" -v w="$wall" -v b="$base" 'BEGIN {
			name["kafka-dump-log"] = "kafka-dump-log --deep-iteration --print-data-log"
			name["ksleuth-dump"] = "ksleuth dump --records --payload"
			name["ksleuth-scan"] = "ksleuth scan"
			name["ksleuth-scan-j1"] = "ksleuth scan --jobs 1"
			printf "| %s | %.0f MiB | %d | `%s` | %.1f | %.1f | %.0f | %.1fx |\n", c, s / 1048576, r, name[t], cpu, w, s / 1e6 / cpu, b / cpu
		}'
	done
done
