// Runs analysis/sql/duplicates.sql on DuckDB (the @duckdb/node-api
// package, found through NODE_PATH) over the records datasets given, and
// prints one line per member of each group, for comparison with
// `ksleuth dups --from-tables --json` (cmd/ksleuth/enginetest/duckdb):
//
//   group_id|fingerprint|source|topic|partition|offset|producer_id|producer_epoch|
//   sequence|timestamp_ms|occurrence|class|txn_state|damaged|ref_topic|
//   ref_partition|ref_offset|ref_producer_id
//
// Usage: node duckdb_groups.cjs duplicates.sql RECORDS_DIR...
'use strict';
const fs = require('fs');
const { DuckDBInstance } = require('@duckdb/node-api');

async function main() {
  const [sqlFile, ...dirs] = process.argv.slice(2);
  if (!sqlFile || dirs.length === 0) {
    throw new Error('usage: node duckdb_groups.cjs duplicates.sql RECORDS_DIR...');
  }
  const inst = await DuckDBInstance.create(':memory:');
  const c = await inst.connect();
  const globs = dirs.map((d) => `'${d.replace(/'/g, "''")}/*.parquet'`).join(', ');
  await c.run(`CREATE VIEW records AS SELECT * FROM read_parquet([${globs}])`);
  await c.run(fs.readFileSync(sqlFile, 'utf8'));
  const cols = ['group_id', 'fingerprint', 'source', 'topic', 'partition', 'offset', 'producer_id', 'producer_epoch',
    'sequence', 'epoch_ms(timestamp)', 'occurrence', 'class', 'txn_state', 'damaged', 'ref_topic', 'ref_partition',
    'ref_offset', 'ref_producer_id'];
  const expr = cols.map((x) => `coalesce(CAST(${x.includes('(') ? x : '"' + x + '"'} AS VARCHAR), '')`).join(` || '|' || `);
  const r = await c.runAndReadAll(`SELECT ${expr} AS line FROM dup_groups ORDER BY group_id, occurrence`);
  const out = r.getRows().map((row) => row[0]).join('\n');
  process.stdout.write(out + (out ? '\n' : ''));
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack || e) + '\n');
  process.exit(1);
});
