-- duplicates.sql: ksleuth's duplicate groups and classes (docs/duplicates.md)
-- computed by a SQL engine from the records tables
-- of one or many `ksleuth scan --records` runs. It gives the groups,
-- members, occurrence numbers, classes and reference copies that
-- `ksleuth dups --from-tables` gives (defaults: --scope topic,
-- --restart-window 10m, no --same-pid); the explanations are ksleuth's.
--
-- Written in the SQL that DuckDB (1.x) and Spark SQL (3.4+; tested on 4.3)
-- share: CTE-free temporary views, window functions, CASE, INTERVAL literals. Column names
-- that are keywords (offset, partition, timestamp) are only used qualified
-- (r.offset) or as aliases, which both engines accept unquoted.
--
-- Before running it, define a view `records` over the records datasets,
-- for example (see docs/scale-out.md):
--   DuckDB:    CREATE VIEW records AS SELECT * FROM read_parquet(
--                'shard-*/records/*.parquet');
--   Spark SQL: CREATE TEMPORARY VIEW records USING parquet
--                OPTIONS (path 's3a://bucket/incident/shard-*/records');
--
-- Options, to change by hand:
--   --scope partition: in dup_records, scope_part = CAST(r.partition AS INT)
--   --scope all:       in dup_records, scope_topic = '' (and scope_part -1)
--   --same-pid:        in dup_members, drop the PID, abort and cause condition
--   --restart-window:  the INTERVAL in dup_classified
-- --match and --ignore-header were applied at scan time: the fingerprint
-- column already covers the chosen parts.
--
-- Sessions are computed from the records themselves (not producers.parquet,
-- whose times come from batch headers), exactly as ksleuth does. Each
-- (source, dir) is one partition dir of one input: sources must be unique
-- across the shards (ksleuth dups --from-tables checks this).

-- Data records (control records are never fingerprinted), with the scope.
-- Records of files outside partition dirs have topic '' and partition -1
-- (datasets written before ksleuth kept its files side by side read that
-- topic as null from their Hive dir).
CREATE OR REPLACE TEMPORARY VIEW dup_records AS
SELECT r.source AS source, r.input AS input, COALESCE(r.topic, '') AS topic, CAST(r.partition AS INT) AS part, r.dir AS dir,
       r.offset AS off, r.timestamp AS ts, r.producer_id AS pid, r.producer_epoch AS epoch, r.sequence AS seq,
       r.fingerprint AS fp, r.txn_state AS txn_state, r.damaged AS damaged,
       COALESCE(r.topic, '') AS scope_topic, -1 AS scope_part,
       COALESCE(r.timestamp_type, '') AS ts_type,
       MIN(r.offset) OVER (PARTITION BY r.source, r.dir, r.segment, r.batch_position) AS batch_base
FROM records r
WHERE NOT r.is_control;

-- What each producer session (PID and epoch) did in each partition dir,
-- and each PID over all its epochs.
CREATE OR REPLACE TEMPORARY VIEW dup_sessions AS
SELECT source, dir, pid, epoch, MIN(off) AS first_off, MAX(off) AS last_off, MIN(ts) AS first_ts, MAX(ts) AS last_ts
FROM dup_records
GROUP BY source, dir, pid, epoch;

CREATE OR REPLACE TEMPORARY VIEW dup_writers AS
SELECT source, dir, pid, MIN(off) AS first_off, MAX(off) AS last_off, MIN(ts) AS first_ts, MAX(ts) AS last_ts
FROM dup_records
GROUP BY source, dir, pid;

-- Fingerprints seen at least twice in their scope: the only rows shuffled
-- further.
CREATE OR REPLACE TEMPORARY VIEW dup_candidates AS
SELECT c.*
FROM (SELECT d.*, COUNT(*) OVER (PARTITION BY d.fp, d.scope_topic, d.scope_part) AS n FROM dup_records d) c
WHERE c.n >= 2;

-- Member order: time (no timestamp first), topic, partition, offset,
-- undamaged before damaged copies, then source and dir. A copy with the
-- same topic, partition and offset as the one before it is a replica of
-- the same record (another broker's copy, a -future dir) and is dropped.
CREATE OR REPLACE TEMPORARY VIEW dup_ordered AS
SELECT c.*,
       ROW_NUMBER() OVER w AS pos,
       LAG(c.topic) OVER w AS prev_topic,
       LAG(c.part) OVER w AS prev_part,
       LAG(c.off) OVER w AS prev_off
FROM dup_candidates c
WINDOW w AS (PARTITION BY c.fp, c.scope_topic, c.scope_part
             ORDER BY c.ts ASC NULLS FIRST, c.topic, c.part, c.off, c.damaged, c.source, c.dir, c.input);

-- Each member is compared with the member just before it for the causes
-- that need no second writer (analysis/dups causes): a dedup-failure
-- repeats the PID, epoch and sequence number later in the same
-- partition; a retry is PID -1 twice, later in the same partition, in
-- another batch, with the same timestamp set by the producer (not
-- LogAppendTime).
CREATE OR REPLACE TEMPORARY VIEW dup_members_caused AS
SELECT k.*,
       CASE WHEN k.a_off IS NULL OR k.a_topic <> k.topic OR k.a_part <> k.part OR k.off <= k.a_off THEN ''
            WHEN k.a_pid >= 0 AND k.pid = k.a_pid AND k.epoch = k.a_epoch AND k.a_seq >= 0 AND k.seq = k.a_seq THEN 'dedup-failure'
            WHEN k.a_pid < 0 AND k.pid < 0 AND k.a_ts IS NOT NULL AND k.ts = k.a_ts
                 AND k.a_ts_type <> 'LogAppendTime' AND k.ts_type <> 'LogAppendTime' AND k.batch_base <> k.a_batch_base THEN 'retry'
            ELSE '' END AS cause
FROM (SELECT x.*,
             LAG(x.topic) OVER p AS a_topic, LAG(x.part) OVER p AS a_part, LAG(x.off) OVER p AS a_off,
             LAG(x.pid) OVER p AS a_pid, LAG(x.epoch) OVER p AS a_epoch, LAG(x.seq) OVER p AS a_seq,
             LAG(x.ts) OVER p AS a_ts, LAG(x.ts_type) OVER p AS a_ts_type, LAG(x.batch_base) OVER p AS a_batch_base
      FROM (SELECT o.*, ROW_NUMBER() OVER (PARTITION BY o.fp, o.scope_topic, o.scope_part ORDER BY o.pos) AS occurrence
            FROM dup_ordered o
            WHERE o.prev_off IS NULL OR NOT (o.prev_topic = o.topic AND o.prev_part = o.part AND o.prev_off = o.off)) x
      WINDOW p AS (PARTITION BY x.fp, x.scope_topic, x.scope_part ORDER BY x.occurrence)) k;

CREATE OR REPLACE TEMPORARY VIEW dup_members_all AS
SELECT m.*,
       COUNT(*) OVER g AS members,
       MIN(m.pid) OVER g AS min_pid,
       MAX(m.pid) OVER g AS max_pid,
       MIN(CASE WHEN m.txn_state = 'aborted' THEN m.occurrence END) OVER g AS first_aborted,
       MAX(CASE WHEN COALESCE(m.txn_state, '') <> 'aborted' THEN m.occurrence END) OVER g AS last_not_aborted,
       MAX(CASE WHEN m.cause <> '' THEN 1 ELSE 0 END) OVER g AS caused
FROM dup_members_caused m
WINDOW g AS (PARTITION BY m.fp, m.scope_topic, m.scope_part);

-- Reported groups: two or more copies written under two or more PIDs,
-- a copy in an aborted transaction followed by one that is not (a
-- restarted transactional producer keeps its PID: its retry is a
-- txn-retry under one PID), or a copy with a cause (a retry or a
-- dedup-failure, which need no second writer either).
-- Each later copy is compared with the copy just before it when that is
-- of the same producer session (not PID -1, not in an aborted
-- transaction): the session repeats its own content. Else with the
-- latest earlier copy by another PID (the copy just before its run of
-- same-PID copies), else with the copy just before it.
CREATE OR REPLACE TEMPORARY VIEW dup_members AS
SELECT r.*,
       CASE WHEN r.occurrence = 1 THEN NULL
            WHEN r.cause <> '' THEN r.occurrence - 1
            WHEN r.prev_pid = r.pid AND r.prev_epoch = r.epoch AND r.pid >= 0
                 AND COALESCE(r.prev_txn, '') <> 'aborted' THEN r.occurrence - 1
            WHEN r.run_start > 1 THEN r.run_start - 1
            ELSE r.occurrence - 1 END AS ref_occurrence
FROM (SELECT s.*, MIN(s.occurrence) OVER (PARTITION BY s.fp, s.scope_topic, s.scope_part, s.run_id) AS run_start
      FROM (SELECT n.*, SUM(n.new_run) OVER (PARTITION BY n.fp, n.scope_topic, n.scope_part ORDER BY n.occurrence
                                             ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS run_id
            FROM (SELECT a.*, CASE WHEN a.pid = LAG(a.pid) OVER (PARTITION BY a.fp, a.scope_topic, a.scope_part ORDER BY a.occurrence)
                                   THEN 0 ELSE 1 END AS new_run,
                         LAG(a.pid) OVER (PARTITION BY a.fp, a.scope_topic, a.scope_part ORDER BY a.occurrence) AS prev_pid,
                         LAG(a.epoch) OVER (PARTITION BY a.fp, a.scope_topic, a.scope_part ORDER BY a.occurrence) AS prev_epoch,
                         LAG(a.txn_state) OVER (PARTITION BY a.fp, a.scope_topic, a.scope_part ORDER BY a.occurrence) AS prev_txn
                  FROM dup_members_all a
                  WHERE a.members >= 2
                    AND (a.min_pid <> a.max_pid OR a.first_aborted < a.last_not_aborted OR a.caused = 1)) n) s) r;

-- Classes (analysis/dups classify):
--   retry, dedup-failure  the cause against the copy just before;
--   txn-retry       the earlier copy was in an aborted transaction;
--   restart-resend  the later session began after the earlier PID's last
--                   write (by offset in the same partition dir, by time
--                   elsewhere), within the restart window;
--   repeat          anything else: the same session, PID -1, no
--                   timestamps, concurrent writers, or beyond the window.
-- The records tables hold no consumer group commits or generations, so
-- this SQL does not tell ksleuth's consumer-side classes: a copy ksleuth
-- calls reprocess is a restart-resend here (a repeat when the restart
-- took longer than the window, which only a named pipeline makes a
-- reprocess), and a rebalance a repeat (a restart-resend when the
-- zombie's successor wrote after it).
CREATE OR REPLACE TEMPORARY VIEW dup_classified AS
SELECT m.fp, m.scope_topic, m.scope_part, m.source, m.input, m.topic, m.part, m.dir, m.off, m.ts, m.pid, m.epoch, m.seq,
       m.txn_state, m.damaged, m.occurrence,
       e.source AS ref_source, e.topic AS ref_topic, e.part AS ref_part, e.off AS ref_off, e.pid AS ref_pid,
       CASE
         WHEN m.occurrence = 1 THEN ''
         WHEN m.cause <> '' THEN m.cause
         WHEN e.txn_state = 'aborted' THEN 'txn-retry'
         WHEN m.pid = e.pid AND (m.pid < 0 OR m.epoch = e.epoch) THEN 'repeat'
         WHEN m.pid < 0 OR e.pid < 0 THEN 'repeat'
         WHEN ls.first_ts IS NULL THEN 'repeat'
         WHEN m.pid = e.pid AND es.last_ts IS NULL THEN 'repeat'
         WHEN m.pid <> e.pid AND ew.last_ts IS NULL THEN 'repeat'
         WHEN m.source = e.source AND m.dir = e.dir
              AND ls.first_off <= CASE WHEN m.pid = e.pid THEN es.last_off ELSE ew.last_off END THEN 'repeat'
         WHEN NOT (m.source = e.source AND m.dir = e.dir)
              AND ls.first_ts < CASE WHEN m.pid = e.pid THEN es.last_ts ELSE ew.last_ts END THEN 'repeat'
         WHEN ls.first_ts > CASE WHEN m.pid = e.pid THEN es.last_ts ELSE ew.last_ts END + INTERVAL '10' MINUTE THEN 'repeat'
         ELSE 'restart-resend'
       END AS class
FROM dup_members m
LEFT JOIN dup_members e
  ON e.fp = m.fp AND e.scope_topic = m.scope_topic AND e.scope_part = m.scope_part AND e.occurrence = m.ref_occurrence
LEFT JOIN dup_sessions ls
  ON ls.source = m.source AND ls.dir = m.dir AND ls.pid = m.pid AND ls.epoch = m.epoch
LEFT JOIN dup_sessions es
  ON es.source = e.source AND es.dir = e.dir AND es.pid = e.pid AND es.epoch = e.epoch
LEFT JOIN dup_writers ew
  ON ew.source = e.source AND ew.dir = e.dir AND ew.pid = e.pid;

-- The result, in the columns of duplicates.parquet; group_id numbers the
-- groups in (fingerprint, scope) order as ksleuth does (a global sort of
-- the reported rows only).
CREATE OR REPLACE TEMPORARY VIEW dup_groups AS
SELECT DENSE_RANK() OVER (ORDER BY c.fp, c.scope_topic, c.scope_part) AS group_id,
       c.fp AS fingerprint, c.source AS source, c.input AS input, c.topic AS topic, c.part AS partition, c.off AS offset,
       c.pid AS producer_id, c.epoch AS producer_epoch, c.seq AS sequence, c.ts AS timestamp, c.occurrence AS occurrence,
       c.class AS class, c.txn_state AS txn_state, c.damaged AS damaged,
       c.ref_source AS ref_source, c.ref_topic AS ref_topic, c.ref_part AS ref_partition, c.ref_off AS ref_offset,
       c.ref_pid AS ref_producer_id
FROM dup_classified c;

SELECT * FROM dup_groups ORDER BY group_id, occurrence;
