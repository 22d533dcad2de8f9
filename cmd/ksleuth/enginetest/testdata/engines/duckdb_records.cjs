// Prints the data records of a records dataset (scan --records --payload)
// that a WHERE clause selects, one line per record in the order `ksleuth
// records` promises (input, partition dir, segment, byte position,
// offset): source|segment|offset|timestamp ms|producer id|epoch|sequence|
// key hex|value hex|headers as key=hex,... (NULL for a null). A second
// reader's answer to a records selection (cmd/ksleuth/enginetest/duckdb).
//
// Usage: node duckdb_records.cjs RECORDS_DIR "WHERE-CONDITION"
'use strict';
const { DuckDBInstance } = require('@duckdb/node-api');

async function main() {
  const [dir, where] = process.argv.slice(2);
  if (!dir || !where) {
    throw new Error('usage: node duckdb_records.cjs RECORDS_DIR "CONDITION"');
  }
  const inst = await DuckDBInstance.create(':memory:');
  const c = await inst.connect();
  const glob = `${dir.replace(/'/g, "''")}/*.parquet`;
  await c.run(`CREATE VIEW records AS SELECT * FROM read_parquet('${glob}')`);
  const hex = (x) => `coalesce(lower(hex(${x})), 'NULL')`;
  const line = [
    'source', 'segment', 'CAST("offset" AS VARCHAR)',
    `coalesce(CAST(epoch_ms("timestamp") AS VARCHAR), '')`,
    'CAST(producer_id AS VARCHAR)', 'CAST(producer_epoch AS VARCHAR)', 'CAST(sequence AS VARCHAR)',
    hex('key'), hex('value'),
    `coalesce(array_to_string(list_transform(headers, h -> h.key || '=' || ${hex('h.value')}), ','), '')`,
  ].join(` || '|' || `);
  const sql = `SELECT ${line} FROM records
    WHERE NOT is_control AND segment LIKE '%.log' AND (${where})
    ORDER BY input, regexp_replace(segment, '/[^/]*$', ''), segment, batch_position, "offset"`;
  const r = await c.runAndReadAll(sql);
  const out = r.getRows().map((row) => row[0]).join('\n');
  process.stdout.write(out + (out ? '\n' : ''));
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack || e) + '\n');
  process.exit(1);
});
