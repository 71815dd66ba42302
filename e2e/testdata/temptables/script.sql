# Temporary tables, run on Petrel and on MariaDB (InnoDB) statement by
# statement; each outcome (error number, rows affected, rows, warnings'
# codes) must match. "mysql8: OUTCOME<TAB>STATEMENT" states MySQL 8's
# outcome where MariaDB's differs.
CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB
INSERT INTO t VALUES (1,'base one'),(2,'base two')
# A trigger on the base table: it never fires for the temporary table,
# and dropping the temporary table keeps it.
CREATE TABLE tlog (n INT) ENGINE=InnoDB
CREATE TRIGGER t_ai AFTER INSERT ON t FOR EACH ROW INSERT INTO tlog VALUES (NEW.id)
CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, v VARCHAR(20), n INT DEFAULT 0, KEY (v)) ENGINE=InnoDB
SELECT * FROM t
INSERT INTO t (id, v) VALUES (10,'temp ten'),(11,'temp eleven'),(12,'temp twelve')
SELECT * FROM t ORDER BY id
SELECT * FROM t WHERE id = 11
SELECT * FROM t WHERE v = 'temp twelve'
SHOW TABLES
CREATE TEMPORARY TABLE t (id INT) ENGINE=InnoDB
INSERT INTO t (id, v) VALUES (10,'duplicate')
UPDATE t SET n = n + 1 WHERE id >= 11
DELETE FROM t WHERE id = 12
SELECT * FROM t ORDER BY id
# Transactions: InnoDB temporary tables roll back.
BEGIN
INSERT INTO t (id, v) VALUES (20,'rolled back')
UPDATE t SET v = 'changed' WHERE id = 10
ROLLBACK
SELECT * FROM t ORDER BY id
BEGIN
INSERT INTO t (id, v) VALUES (21,'kept')
COMMIT
SELECT * FROM t ORDER BY id
BEGIN
INSERT INTO t (id, v) VALUES (22,'x')
SAVEPOINT s1
INSERT INTO t (id, v) VALUES (23,'y')
ROLLBACK TO SAVEPOINT s1
COMMIT
SELECT id FROM t ORDER BY id
# DDL on a temporary table.
# A temporary table's DDL copies its rows (rows affected: MySQL's and MariaDB's count, Petrel's 0).
ok: CREATE INDEX ix_n ON t (n)
SELECT id FROM t WHERE n = 1
ok: ALTER TABLE t ADD COLUMN extra VARCHAR(5) DEFAULT 'e'
SELECT * FROM t ORDER BY id
ok: ALTER TABLE t DROP COLUMN extra
TRUNCATE TABLE t
SELECT COUNT(*) FROM t
INSERT INTO t (id, v) VALUES (30,'after truncate')
SELECT COUNT(*) FROM tlog
# Dropping the temporary table shows the base table again.
DROP TABLE t
SELECT * FROM t ORDER BY id
SELECT TRIGGER_NAME, EVENT_OBJECT_TABLE FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = 'tmp'
INSERT INTO t VALUES (3,'base three')
SELECT n FROM tlog ORDER BY n
DELETE FROM t WHERE id = 3
SELECT * FROM t ORDER BY id
# CREATE ... SELECT, LIKE, joins with base tables, aggregates.
CREATE TEMPORARY TABLE agg SELECT id, UPPER(v) AS uv FROM t
SELECT * FROM agg ORDER BY id
CREATE TEMPORARY TABLE nn SELECT id, NULL FROM t
SELECT * FROM nn ORDER BY id
INSERT INTO nn VALUES (9, NULL)
SELECT COUNT(*) FROM nn WHERE `NULL` IS NULL
DROP TEMPORARY TABLE nn
CREATE TEMPORARY TABLE lk LIKE t
INSERT INTO lk SELECT id + 100, v FROM t
SELECT lk.id, t.id, lk.v FROM lk JOIN t ON lk.v = t.v ORDER BY lk.id
SELECT COUNT(*), MAX(id) FROM lk
UPDATE t JOIN lk ON lk.id = t.id + 100 SET t.v = CONCAT(t.v, '!')
SELECT * FROM t ORDER BY id
DELETE lk FROM lk JOIN t ON lk.id = t.id + 100 WHERE t.id = 1
SELECT id FROM lk ORDER BY id
ALTER TABLE lk RENAME TO lk2
SELECT id FROM lk2 ORDER BY id
SELECT id FROM lk
DROP TEMPORARY TABLE lk2, agg
SELECT id FROM lk2
CREATE TEMPORARY TABLE auto (id INT AUTO_INCREMENT PRIMARY KEY, v INT) ENGINE=InnoDB
INSERT INTO auto (v) VALUES (1),(2),(3)
SELECT * FROM auto ORDER BY id
SELECT LAST_INSERT_ID()
DROP TABLE auto
# DROP TEMPORARY TABLE IF EXISTS names only temporary tables: a base
# table (t) and a missing name are notes, the base table stays.
CREATE TEMPORARY TABLE gone (id INT) ENGINE=InnoDB
DROP TEMPORARY TABLE IF EXISTS t
DROP TEMPORARY TABLE IF EXISTS gone, nosuch
SELECT COUNT(*) FROM t
SELECT * FROM gone
DROP TEMPORARY TABLE t
# A temporary table shadows a view of the same name; the view commands
# still name the view.
CREATE TEMPORARY TABLE v1 AS SELECT 'temporary' AS a
CREATE VIEW v1 AS SELECT 'view' AS a
SELECT * FROM v1
DROP VIEW v1
SELECT * FROM v1
CREATE OR REPLACE VIEW v1 AS SELECT 'view again' AS a
SELECT * FROM v1
DROP TABLE v1
SELECT * FROM v1
DROP VIEW v1
