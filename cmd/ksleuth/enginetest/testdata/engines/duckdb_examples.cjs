// Prints one example row of every table of a ksleuth scan output dir as
// DuckDB reads it, as JSON lines {"table", "row"}: the first row of each
// file table, and the record with the lowest topic, partition and offset
// of the records dataset. For docs/tables.md (cmd/ksleuth/enginetest/duckdb).
//
// Usage: node duckdb_examples.cjs DIR
'use strict';
const fs = require('fs');
const path = require('path');
const { DuckDBInstance } = require('@duckdb/node-api');

async function main() {
  const dir = process.argv[2];
  const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
  const c = await inst.connect();
  const qs = {};
  for (const f of fs.readdirSync(dir).sort()) {
    if (f.endsWith('.parquet')) {
      qs[f.slice(0, -'.parquet'.length)] =
        `SELECT * EXCLUDE (file_row_number) FROM read_parquet('${path.join(dir, f)}', file_row_number = true) ORDER BY file_row_number LIMIT 1`;
    }
  }
  if (fs.existsSync(path.join(dir, 'records'))) {
    qs.records = `SELECT * FROM read_parquet('${path.join(dir, 'records')}/*.parquet')
      WHERE NOT is_control ORDER BY topic, "partition", "offset" LIMIT 1`;
  }
  for (const [name, q] of Object.entries(qs)) {
    const r = (await c.runAndReadAll(`SELECT to_json(t)::VARCHAR FROM (${q}) t`)).getRows();
    if (r.length) process.stdout.write(JSON.stringify({ table: name, row: JSON.parse(r[0][0]) }) + '\n');
  }
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack || e) + '\n');
  process.exit(1);
});
