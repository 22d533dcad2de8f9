"""Decodes Avro bodies with fastavro, for TestRealCorpusAgainstFastavro.

Usage: python fastavro_decode.py IN.jsonl OUT.jsonl

Each line of IN.jsonl is {"schema": <Avro schema text>, "hex": <a body>};
each line of OUT.jsonl is the datum fastavro's schemaless_reader reads
from the body, as fastavro's json_writer writes it (the Avro JSON
encoding), or {"error": ...} when fastavro cannot read it.
"""
import io
import json
import sys

import fastavro

parsed = {}
with open(sys.argv[1]) as inp, open(sys.argv[2], "w") as out:
    for line in inp:
        case = json.loads(line)
        text = case["schema"]
        if text not in parsed:
            parsed[text] = fastavro.parse_schema(json.loads(text))
        s = parsed[text]
        try:
            rec = fastavro.schemaless_reader(io.BytesIO(bytes.fromhex(case["hex"])), s, None)
            j = io.StringIO()
            fastavro.json_writer(j, s, [rec])
            out.write(json.dumps({"json": json.loads(j.getvalue())}) + "\n")
        except Exception as e:  # the truth of a body fastavro cannot read
            out.write(json.dumps({"error": str(e)}) + "\n")
