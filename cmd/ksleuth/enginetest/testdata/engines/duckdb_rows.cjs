// Prints the rows of one Parquet file as DuckDB reads them, one line per
// row, the columns given joined by '|' (NULL as an empty field), ordered
// by the ORDER BY clause given: a second reader's view of ksleuth's tables
// (cmd/ksleuth/enginetest/duckdb).
//
// Usage: node duckdb_rows.cjs FILE.parquet "ORDER BY ..." COLUMN...
'use strict';
const { DuckDBInstance } = require('@duckdb/node-api');

async function main() {
  const [file, order, ...cols] = process.argv.slice(2);
  if (!file || !order || cols.length === 0) {
    throw new Error('usage: node duckdb_rows.cjs FILE.parquet "ORDER BY ..." COLUMN...');
  }
  const inst = await DuckDBInstance.create(':memory:');
  const c = await inst.connect();
  const expr = cols.map((x) => `coalesce(CAST(${x} AS VARCHAR), '')`).join(` || '|' || `);
  const src = `read_parquet('${file.replace(/'/g, "''")}')`;
  const r = await c.runAndReadAll(`SELECT ${expr} AS line FROM ${src} ${order}`);
  const out = r.getRows().map((row) => row[0]).join('\n');
  process.stdout.write(out + (out ? '\n' : ''));
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack || e) + '\n');
  process.exit(1);
});
