# Reads every table of a ksleuth scan (DIR/*.parquet and the records
# dataset DIR/records) with the engines named in ENGINES, a comma list of
# pyarrow, pandas (pyarrow engine), polars and spark (local mode), each
# with its defaults as docs/tables.md shows (pandas also with
# dtype_backend="pyarrow", for the type table), and prints JSON lines for
# the tests under cmd/ksleuth/enginetest:
#
#   {"kind":"column","engine":E,"table":T,"column":C,"type":"...","nullable":B|null,"nulls":N,"rows":R}
#   {"kind":"value","engine":E,"table":T,"column":C,"what":"max"|"min","value":"decimal or epoch ms"}
#     (for every int64 and timestamp column)
#   {"kind":"headers","engine":E,"offset":O,"value":[[key, hex value or null], ...]}
#
# Usage: python tables.py DIR PROBE_TOPIC PROBE_OFFSET ENGINES
#
# Spark starts only when ENGINES names it: its JVM takes most of a run.
import glob
import json
import os
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

DIR, PROBE_TOPIC, PROBE_OFFSET = sys.argv[1], sys.argv[2], int(sys.argv[3])
ENGINES = sys.argv[4].split(",")


def emit(**kw):
    print(json.dumps(kw, sort_keys=True))


def tables():
    out = {}
    for p in sorted(glob.glob(os.path.join(DIR, "*.parquet"))):
        out[os.path.basename(p)[: -len(".parquet")]] = p
    if os.path.isdir(os.path.join(DIR, "records")):
        out["records"] = os.path.join(DIR, "records")
    return out


def extremes(engine, table, cols, get):
    for c in cols:
        for what in ("min", "max"):
            v = get(c, what)
            if v is not None:
                emit(kind="value", engine=engine, table=table, column=c, what=what, value=str(v))


def hexval(b):
    return None if b is None else bytes(b).hex()


def do_pyarrow(name, path):
    t = pq.read_table(path)
    for f in t.schema:
        emit(kind="column", engine="pyarrow", table=name, column=f.name, type=str(f.type), nullable=f.nullable,
             nulls=t.column(f.name).null_count, rows=t.num_rows)

    cols = [f.name for f in t.schema if pa.types.is_int64(f.type) or pa.types.is_timestamp(f.type)]

    def get(c, what):
        if t.column(c).null_count == t.num_rows:
            return None
        return pc.min_max(pc.cast(t.column(c), pa.int64()))[what].as_py()
    extremes("pyarrow", name, cols, get)
    if name == "records":
        rows = t.filter(pc.and_(pc.equal(t.column("topic"), PROBE_TOPIC), pc.equal(t.column("offset"), PROBE_OFFSET)))
        for h in rows.column("headers").to_pylist():
            emit(kind="headers", engine="pyarrow", offset=PROBE_OFFSET, value=[[x["key"], hexval(x["value"])] for x in h])


def do_pandas(name, path):
    # dtype_backend="pyarrow" gives the types of docs/tables.md's table;
    # the plain default ("pandas-default") reads the same values, the
    # nullable integer columns as Int64 and Int32 (the pandas footer key).
    import pandas as pd
    df = pd.read_parquet(path, dtype_backend="pyarrow")
    for c in df.columns:
        emit(kind="column", engine="pandas", table=name, column=c, type=str(df.dtypes[c]), nullable=None,
             nulls=int(df[c].isna().sum()), rows=len(df))

    cols = [c for c in df.columns if str(df.dtypes[c]).startswith(("int64", "timestamp"))]

    def get(c, what):
        if df[c].isna().all():
            return None
        # A pyarrow-backed timestamp casts to its unit's integer: ms.
        return int(getattr(df[c].astype("int64[pyarrow]"), what)())
    extremes("pandas", name, cols, get)
    plain = pd.read_parquet(path)
    for c in plain.columns:
        emit(kind="column", engine="pandas-default", table=name, column=c, type=str(plain.dtypes[c]), nullable=None,
             nulls=int(plain[c].isna().sum()), rows=len(plain))

    def get_plain(c, what):
        s = plain[c].dropna()
        if s.empty:
            return None
        if str(s.dtype).startswith("datetime64"):
            s = s.astype("int64")  # the unit's integer: ms
        return getattr(s, what)()
    extremes("pandas-default", name, cols, get_plain)
    if name == "records":
        sel = df[(df["topic"] == PROBE_TOPIC) & (df["offset"] == PROBE_OFFSET)]
        for h in sel["headers"]:
            emit(kind="headers", engine="pandas", offset=PROBE_OFFSET, value=[[x["key"], hexval(x["value"])] for x in h])


def do_polars(name, path):
    import polars as pl
    df = pl.read_parquet(path)
    for c, dt in df.schema.items():
        emit(kind="column", engine="polars", table=name, column=c, type=str(dt), nullable=None,
             nulls=df[c].null_count(), rows=df.height)

    cols = [c for c, dt in df.schema.items() if dt == pl.Int64 or isinstance(dt, pl.Datetime)]

    def get(c, what):
        if df[c].null_count() == df.height:
            return None
        s = df[c]
        if isinstance(s.dtype, pl.Datetime):
            s = s.dt.epoch("ms")
        return getattr(s, what)()
    extremes("polars", name, cols, get)
    if name == "records":
        sel = df.filter((pl.col("topic") == PROBE_TOPIC) & (pl.col("offset") == PROBE_OFFSET))
        for h in sel["headers"].to_list():
            emit(kind="headers", engine="polars", offset=PROBE_OFFSET, value=[[x["key"], hexval(x["value"])] for x in h])


def do_spark(spark, name, path):
    df = spark.read.parquet(path)
    n = df.count()
    from pyspark.sql import functions as F
    nulls = df.select([F.sum(F.col("`%s`" % c).isNull().cast("long")).alias(c) for c in df.columns]).collect()[0]
    for f in df.schema.fields:
        emit(kind="column", engine="spark", table=name, column=f.name, type=f.dataType.simpleString(),
             nullable=f.nullable, nulls=int(nulls[f.name] or 0), rows=n)
    from pyspark.sql.types import LongType, TimestampType
    cols = [f.name for f in df.schema.fields if isinstance(f.dataType, (LongType, TimestampType))]
    aggs = []
    for f in df.schema.fields:
        if f.name in cols:
            col = F.col("`%s`" % f.name)
            if isinstance(f.dataType, TimestampType):
                col = F.unix_millis(col)
            aggs += [F.min(col).alias("min_" + f.name), F.max(col).alias("max_" + f.name)]
    if aggs:
        r = df.agg(*aggs).collect()[0]
        for c in cols:
            for what in ("min", "max"):
                v = r[what + "_" + c]
                if v is not None:
                    emit(kind="value", engine="spark", table=name, column=c, what=what, value=str(v))
    if name == "records":
        for row in df.filter((F.col("topic") == PROBE_TOPIC) & (F.col("`offset`") == PROBE_OFFSET)).select("headers").collect():
            emit(kind="headers", engine="spark", offset=PROBE_OFFSET,
                 value=[[x["key"], hexval(x["value"])] for x in row.headers])


def main():
    spark = None
    if "spark" in ENGINES:
        from pyspark.sql import SparkSession
        spark = (SparkSession.builder.master("local[2]")
                 .config("spark.sql.session.timeZone", "UTC")
                 .config("spark.sql.shuffle.partitions", "4")
                 .config("spark.ui.enabled", "false")
                 .getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
    readers = {"pyarrow": do_pyarrow, "pandas": do_pandas, "polars": do_polars,
               "spark": lambda name, path: do_spark(spark, name, path)}
    for e in ENGINES:
        if e not in readers:
            sys.exit("unknown engine " + e)
    for name, path in tables().items():
        for e in ENGINES:
            readers[e](name, path)
    if spark is not None:
        spark.stop()


main()
