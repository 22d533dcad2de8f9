# Runs analysis/sql/duplicates.sql on Spark SQL (pyspark, local mode) over
# the records datasets of sharded scans, and prints one line per member of
# each group in the format of duckdb_groups.cjs, for comparison with
# `ksleuth dups --from-tables --json` (cmd/ksleuth/enginetest/spark).
#
# Usage: python spark_groups.py duplicates.sql RECORDS_PATH [RECORDS_PATH ...] [-- RECORDS_PATH ...]
#
# Each RECORDS_PATH may be a glob (shard-*/records). Paths separated by
# "--" are independent jobs run in one Spark session: their outputs are
# separated by a line "--".
import sys

from pyspark.sql import SparkSession

COLS = ["group_id", "fingerprint", "source", "topic", "`partition`", "`offset`", "producer_id", "producer_epoch",
        "sequence", "unix_millis(`timestamp`)", "occurrence", "class", "txn_state", "damaged", "ref_topic",
        "ref_partition", "ref_offset", "ref_producer_id"]


def statements(sql):
    # duplicates.sql has no semicolons inside literals or comments once
    # comment lines are dropped.
    body = "\n".join(l for l in sql.splitlines() if not l.lstrip().startswith("--"))
    return [s.strip() for s in body.split(";") if s.strip()]


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: spark_groups.py duplicates.sql RECORDS_PATH...")
    sql = open(sys.argv[1], encoding="utf-8").read()
    jobs, cur = [], []
    for a in sys.argv[2:]:
        if a == "--":
            jobs.append(cur)
            cur = []
        else:
            cur.append(a)
    jobs.append(cur)
    spark = (SparkSession.builder.master("local[2]")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.sql.shuffle.partitions", "4")
             .config("spark.ui.enabled", "false")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    out = []
    for i, paths in enumerate(jobs):
        if i:
            out.append("--")
        # The records dirs hold their files side by side: Spark's defaults
        # read them.
        spark.read.parquet(*paths).createOrReplaceTempView("records")
        stmts = statements(sql)
        for s in stmts[:-1]:
            spark.sql(s)
        expr = " || '|' || ".join("coalesce(CAST(%s AS STRING), '')" % c for c in COLS)
        for row in spark.sql("SELECT %s AS line FROM dup_groups ORDER BY group_id, occurrence" % expr).collect():
            out.append(row.line)
    sys.stdout.write("\n".join(out) + ("\n" if out else ""))
    spark.stop()


main()
