"""Writes Avro payloads and their Avro JSON encoding with fastavro.

Usage: python fastavro_truth.py SCHEMA.avsc OUT.jsonl

Each line of OUT.jsonl is {"hex": <the datum's Avro binary>, "json": <the
same datum as fastavro's json_writer writes it>}: the truth that
TestAvroAgainstFastavro holds ksleuth's decoder to. The records are built
here from a seeded generator that walks the schema, so every branch of
every union and every logical type is exercised.
"""
import datetime
import decimal
import io
import json
import random
import sys
import uuid

import fastavro
import fastavro.json_write

rng = random.Random(24)


def value(s, named, depth=0):
    if isinstance(s, str):
        if s in named:
            return value(named[s], named, depth)
        s = {"type": s}
    if isinstance(s, list):
        branch = rng.choice(s)
        return value(branch, named, depth)
    t = s["type"]
    lt = s.get("logicalType")
    if isinstance(t, (dict, list)):
        return value(t, named, depth)
    if t in named and t not in ("record", "enum", "fixed", "array", "map"):
        return value(named[t], named, depth)
    if lt == "decimal":
        scale = s.get("scale", 0)
        prec = s["precision"]
        digits = rng.randrange(10 ** (prec - 1))
        return decimal.Decimal(digits * rng.choice([1, -1])).scaleb(-scale)
    if lt == "date":
        return datetime.date(2023, 11, 15) + datetime.timedelta(days=rng.randrange(-4000, 4000))
    if lt == "timestamp-millis":
        return datetime.datetime(2023, 11, 15, 11, 26, 35, rng.randrange(1000) * 1000, tzinfo=datetime.timezone.utc)
    if lt == "timestamp-micros":
        return datetime.datetime(1969, 7, 20, 20, 17, 40, rng.randrange(10**6), tzinfo=datetime.timezone.utc)
    if lt == "uuid":
        return str(uuid.UUID(int=rng.getrandbits(128)))
    if t == "null":
        return None
    if t == "boolean":
        return rng.random() < 0.5
    if t == "int":
        return rng.choice([0, -1, 1, 63, -64, 2**31 - 1, -(2**31), rng.randrange(-1000, 1000)])
    if t == "long":
        return rng.choice([0, -1, 2**63 - 1, -(2**63), rng.randrange(-10**12, 10**12)])
    if t in ("float", "double"):
        # Values a float32 holds exactly, so both sides print one number.
        return rng.choice([0.0, 1.5, -0.25, 1024.125, 3.0e10])
    if t == "string":
        return rng.choice(["", "plain", 'quote " and \\ backslash', "tab\tnewline\n", "ümlaut €", "\x01ctl"])
    if t == "bytes":
        return bytes(rng.randrange(256) for _ in range(rng.randrange(6)))
    if t == "fixed":
        named[s["name"]] = s
        return bytes(rng.randrange(256) for _ in range(s["size"]))
    if t == "enum":
        named[s["name"]] = s
        return rng.choice(s["symbols"])
    if t == "array":
        if depth > 3:
            return []
        return [value(s["items"], named, depth + 1) for _ in range(rng.randrange(4))]
    if t == "map":
        if depth > 3:
            return {}
        return {"k%d" % i: value(s["values"], named, depth + 1) for i in range(rng.randrange(4))}
    if t == "record":
        named[s["name"]] = s
        if "namespace" in s:
            named[s["namespace"] + "." + s["name"]] = s
        return {f["name"]: value(f["type"], named, depth + 1) for f in s["fields"]}
    raise ValueError("type %r" % (t,))


def register(s, named, ns=""):
    """Names every named type of the schema, short and full, before any
    value is built: a union may name a type before its definition is met."""
    if isinstance(s, list):
        for b in s:
            register(b, named, ns)
        return
    if not isinstance(s, dict):
        return
    t = s["type"]
    if isinstance(t, (dict, list)):
        register(t, named, ns)
        return
    if t in ("record", "enum", "fixed"):
        ns = s.get("namespace", ns)
        named[s["name"]] = s
        if ns:
            named[ns + "." + s["name"]] = s
    if t == "record":
        for f in s["fields"]:
            register(f["type"], named, ns)
    if t == "array":
        register(s["items"], named, ns)
    if t == "map":
        register(s["values"], named, ns)


def main():
    schema_path, out_path = sys.argv[1], sys.argv[2]
    with open(schema_path) as f:
        raw = json.load(f)
    parsed = fastavro.parse_schema(raw)
    named = {}
    register(raw, named)
    with open(out_path, "w") as out:
        for _ in range(200):
            rec = value(raw, named)
            b = io.BytesIO()
            fastavro.schemaless_writer(b, parsed, rec)
            j = io.StringIO()
            fastavro.json_writer(j, parsed, [rec])
            out.write(json.dumps({"hex": b.getvalue().hex(), "json": json.loads(j.getvalue())}) + "\n")


main()
