// Reads every table of a ksleuth scan output dir with DuckDB (the
// @duckdb/node-api package, found through NODE_PATH) and prints one JSON
// line per column: {"table", "column", "type", "nulls", "rows"}, for
// cmd/ksleuth/enginetest/duckdb.
//
// Usage: node duckdb_tables.cjs DIR
'use strict';
const fs = require('fs');
const path = require('path');
const { DuckDBInstance } = require('@duckdb/node-api');

async function main() {
  const dir = process.argv[2];
  const inst = await DuckDBInstance.create(':memory:');
  const c = await inst.connect();
  const tables = {};
  for (const f of fs.readdirSync(dir).sort()) {
    if (f.endsWith('.parquet')) tables[f.slice(0, -'.parquet'.length)] = `read_parquet('${path.join(dir, f)}')`;
  }
  if (fs.existsSync(path.join(dir, 'records'))) {
    tables.records = `read_parquet('${path.join(dir, 'records')}/*.parquet')`;
  }
  for (const [name, src] of Object.entries(tables)) {
    const desc = (await c.runAndReadAll(`DESCRIBE SELECT * FROM ${src}`)).getRows();
    const rows = Number((await c.runAndReadAll(`SELECT count(*) FROM ${src}`)).getRows()[0][0]);
    for (const [col, type] of desc) {
      const nulls = Number((await c.runAndReadAll(`SELECT count(*) - count("${col}") FROM ${src}`)).getRows()[0][0]);
      process.stdout.write(JSON.stringify({ table: name, column: col, type: String(type), nulls, rows }) + '\n');
    }
  }
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack || e) + '\n');
  process.exit(1);
});
