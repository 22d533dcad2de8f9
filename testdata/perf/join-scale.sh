#!/usr/bin/env bash
# The duplicate join at scale (docs/performance.md, "The duplicate join at
# scale"): for each size, a seeded log dir of that many records
# (testdata/perf/joinscale) and its records tables (scan --records, once);
# then for each memory budget, RUNS times each, one run of
#   fromtables  ksleuth dups --from-tables TABLES --jobs 1 --mem B
#   inscan      ksleuth scan LOGDIR --jobs 1 --mem B (the whole scan; the
#               detector's share, Detector.Add and Finish, from its CPU profile)
#   duckdb      analysis/sql/duplicates.sql over TABLES/records with
#               threads=1, memory_limit=B, its temp_directory
# measuring CPU-s (user+sys), wall, peak RSS and the peak bytes of its spill
# dir. The groups of all three are compared member by member (topic,
# partition, offset, group id, occurrence, class, reference copy) at every
# budget; a difference stops the script.
#
#   testdata/perf/join-scale.sh ROOT [SIZE...]   (default sizes 1000000 10000000)
#   BUDGETS="256MiB 1GiB" RUNS=3 testdata/perf/join-scale.sh /tmp/js 100000000
#   ENGINES="fromtables inscan" testdata/perf/join-scale.sh /tmp/js   (ksleuth only)
#
# ROOT holds everything (10^7 records: 1.1 GB of segments, 0.4 GB of
# tables; 10^8 ten times that). Results go to ROOT/results.tsv, one line per
# run, and the medians to stdout. DuckDB is the @duckdb/node-api package
# under $KSLEUTH_DUCKDB_NODE (as .ci/run installs it).
set -euo pipefail
root=${1:?usage: join-scale.sh ROOT [SIZE...]}
shift
sizes=${*:-1000000 10000000}
budgets=${BUDGETS:-256MiB 1GiB}
runs=${RUNS:-3}
engines=" ${ENGINES:-fromtables inscan duckdb} "
repo=$(cd "$(dirname "$0")/../.." && pwd)
export NODE_PATH=${KSLEUTH_DUCKDB_NODE:-${XDG_CACHE_HOME:-$HOME/.cache}/ksleuth-ci/duckdb-node}/node_modules
duck="$repo/testdata/perf/join-scale-duckdb.cjs"
mkdir -p "$root/bin" "$root/spill"
root=$(cd "$root" && pwd)
(cd "$repo" && go build -o "$root/bin/ksleuth" ./cmd/ksleuth && go build -o "$root/bin/joinscale" ./testdata/perf/joinscale)
ks="$root/bin/ksleuth"
res="$root/results.tsv"
[ -f "$res" ] || printf 'size\tbudget\tengine\trun\tcpu_s\twall_s\trss_mib\tspill_mib\tjoin_cpu_s\n' >"$res"

# measure NAME CMD...: runs CMD under /usr/bin/time while sampling the size
# of $root/spill; sets cpu, wall, rss (MiB) and spill (MiB, the peak).
measure() {
	rm -rf "$root/spill" && mkdir -p "$root/spill"
	/usr/bin/time -f '%U %S %e %M' -o "$root/time.txt" "$@" >"$root/out.txt" 2>"$root/err.txt" &
	local pid=$! peak=0 s
	while kill -0 "$pid" 2>/dev/null; do
		s=$(du -sb "$root/spill" 2>/dev/null | cut -f1) || s=0
		[ "${s:-0}" -gt "$peak" ] && peak=$s
		sleep 0.2
	done
	wait "$pid" || { cat "$root/err.txt" >&2; return 1; }
	read -r u sy wall rss <"$root/time.txt"
	cpu=$(echo "$u + $sy" | bc)
	rss=$((rss / 1024))
	spill=$((peak / 1048576))
}

# lines PARQUET: the member lines of a groups table.
lines() { node "$duck" lines "$1"; }

for n in $sizes; do
	logs="$root/logs-$n" tables="$root/tables-$n"
	if [ ! -f "$logs/.done" ]; then
		rm -rf "$logs" && "$root/bin/joinscale" -out "$logs" -records "$n" && touch "$logs/.done"
	fi
	if [ ! -f "$tables/.done" ]; then
		"$ks" scan "$logs" --records --out "$tables" --force --jobs 1 --hash none --progress never >/dev/null && touch "$tables/.done"
	fi
	for b in $budgets; do
		for r in $(seq "$runs"); do
			[[ $engines == *" fromtables "* ]] || continue
			measure "$ks" dups --from-tables "$tables" --jobs 1 --mem "$b" --tmp "$root/spill" --progress never
			printf '%s\t%s\tfromtables\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$b" "$r" "$cpu" "$wall" "$rss" "$spill" "$cpu" >>"$res"
		done
		for r in $(seq "$runs"); do
			[[ $engines == *" inscan "* ]] || continue
			rm -rf "$root/scan-out"
			measure env KSLEUTH_CPUPROFILE="$root/scan.prof" "$ks" scan "$logs" --out "$root/scan-out" --jobs 1 --hash none \
				--mem "$b" --tmp "$root/spill" --progress never
			join=$(go tool pprof -unit s -top -cum "$ks" "$root/scan.prof" 2>/dev/null |
				awk '/dups\.\(\*Detector\)\.(Add|Finish)$/ { s += $4 + 0 } END { printf "%.2f", s }')
			printf '%s\t%s\tinscan\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$b" "$r" "$cpu" "$wall" "$rss" "$spill" "$join" >>"$res"
		done
		for r in $(seq "$runs"); do
			[[ $engines == *" duckdb "* ]] || continue
			rm -f "$root/duck.parquet"
			measure node "$duck" run "$repo/analysis/sql/duplicates.sql" 1 "$b" "$root/spill" "$root/duck.parquet" "$tables/records"
			printf '%s\t%s\tduckdb\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$b" "$r" "$cpu" "$wall" "$rss" "$spill" "$cpu" >>"$res"
		done
		# The same groups: DuckDB's, the in-scan detector's duplicates.parquet
		# and dups --from-tables --json at this budget (those that ran; a
		# DuckDB result of an earlier run stays in ROOT/duck-SIZE.lines).
		[[ $engines == *" duckdb "* ]] && lines "$root/duck.parquet" >"$root/duck-$n.lines"
		[[ $engines == *" inscan "* ]] && lines "$root/scan-out/duplicates.parquet" >"$root/scan.lines"
		"$ks" dups --from-tables "$tables" --json --jobs 1 --mem "$b" --tmp "$root/spill" --progress never |
			jq -r '.members[]? | [.group_id, .topic, .partition, .offset, .occurrence, .class,
				(.ref_topic // ""), (.ref_partition // ""), (.ref_offset // "")] | map(tostring) | join("|")' >"$root/tables.lines"
		[[ $engines == *" inscan "* ]] && cmp "$root/tables.lines" "$root/scan.lines"
		if [ -f "$root/duck-$n.lines" ]; then
			cmp "$root/duck-$n.lines" "$root/tables.lines"
			echo "== $n records, $b: $(wc -l <"$root/tables.lines") member rows, the same from DuckDB and ksleuth" >&2
		else
			echo "== $n records, $b: $(wc -l <"$root/tables.lines") member rows from ksleuth (no DuckDB result to compare)" >&2
		fi
	done
done

# Medians per size, budget and engine.
echo "| records | budget | engine | CPU-s | wall s | peak RSS MiB | spill MiB | join CPU-s |"
echo "|---:|---|---|---:|---:|---:|---:|---:|"
tail -n +2 "$res" | sort -t$'\t' -k1,1n -k2,2 -k3,3 -k5,5n | awk -F'\t' '
	function flush() { if (k != "") { m = int((c + 1) / 2); print row[m] } }
	{ key = $1 "|" $2 "|" $3; if (key != k) { flush(); k = key; c = 0 } row[++c] = sprintf("| %s | %s | %s | %.2f | %.2f | %d | %d | %.2f |", $1, $2, $3, $5, $6, $7, $8, $9) }
	END { flush() }'
