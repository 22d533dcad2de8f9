// The DuckDB side of testdata/perf/join-scale.sh (@duckdb/node-api found
// through NODE_PATH).
//
//   node join-scale-duckdb.cjs run SQL THREADS MEMORY_LIMIT TEMP_DIR OUT.parquet RECORDS_DIR...
//     runs analysis/sql/duplicates.sql with that many threads and that
//     memory limit over the records datasets, spilling to TEMP_DIR, and
//     writes its groups to OUT.parquet (the work timed);
//   node join-scale-duckdb.cjs lines FILE.parquet
//     prints one line per member of a groups table (DuckDB's OUT.parquet
//     or ksleuth's duplicates.parquet), in group and occurrence order:
//     group_id|topic|partition|offset|occurrence|class|ref_topic|ref_partition|ref_offset
//     the lines join-scale.sh compares.
'use strict';
const fs = require('fs');
const { DuckDBInstance } = require('@duckdb/node-api');

const q = (s) => `'${s.replace(/'/g, "''")}'`;

async function run(sqlFile, threads, mem, tmp, out, dirs) {
  const inst = await DuckDBInstance.create(':memory:');
  const c = await inst.connect();
  await c.run(`SET threads = ${Number(threads)}`);
  await c.run(`SET memory_limit = ${q(mem)}`);
  await c.run(`SET temp_directory = ${q(tmp)}`);
  await c.run('SET preserve_insertion_order = false');
  const globs = dirs.map((d) => q(d + '/*.parquet')).join(', ');
  await c.run(`CREATE VIEW records AS SELECT * FROM read_parquet([${globs}])`);
  // The views only: the file's closing SELECT is the query written out.
  const sql = fs.readFileSync(sqlFile, 'utf8');
  const last = sql.lastIndexOf('SELECT * FROM dup_groups');
  await c.run(sql.slice(0, last));
  await c.run(`COPY (SELECT * FROM dup_groups ORDER BY group_id, occurrence) TO ${q(out)} (FORMAT parquet)`);
}

async function lines(file) {
  const inst = await DuckDBInstance.create(':memory:');
  const c = await inst.connect();
  const cols = ['group_id', 'topic', 'partition', 'offset', 'occurrence', 'class', 'ref_topic', 'ref_partition', 'ref_offset'];
  const expr = cols.map((x) => `coalesce(CAST("${x}" AS VARCHAR), '')`).join(` || '|' || `);
  const r = await c.stream(`SELECT ${expr} AS line FROM read_parquet(${q(file)}) ORDER BY group_id, occurrence`);
  for (;;) {
    const chunk = await r.fetchChunk();
    if (!chunk || chunk.rowCount === 0) {
      break;
    }
    const rows = chunk.getRows();
    let s = '';
    for (const row of rows) {
      s += row[0] + '\n';
    }
    if (!process.stdout.write(s)) {
      await new Promise((ok) => process.stdout.once('drain', ok));
    }
  }
}

async function main() {
  const [mode, ...args] = process.argv.slice(2);
  if (mode === 'run' && args.length >= 6) {
    return run(args[0], args[1], args[2], args[3], args[4], args.slice(5));
  }
  if (mode === 'lines' && args.length === 1) {
    return lines(args[0]);
  }
  throw new Error('usage: join-scale-duckdb.cjs run SQL THREADS MEM TMP OUT RECORDS_DIR... | lines FILE.parquet');
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack || e) + '\n');
  process.exit(1);
});
