# Foreign keys, run on Petrel and on MariaDB (InnoDB) statement by statement;
# each outcome (error number, rows affected, rows, warnings' codes) must match.
# A line "mysql8: OUTCOME<TAB>STATEMENT" states MySQL 8's outcome where MariaDB's differs.
CREATE TABLE parent (id INT PRIMARY KEY, name VARCHAR(20)) ENGINE=InnoDB
CREATE TABLE child (id INT PRIMARY KEY, pid INT, note VARCHAR(20), CONSTRAINT fk_child FOREIGN KEY (pid) REFERENCES parent (id) ON DELETE CASCADE ON UPDATE CASCADE) ENGINE=InnoDB
CREATE TABLE nullkid (id INT PRIMARY KEY, pid INT, CONSTRAINT fk_nullkid FOREIGN KEY (pid) REFERENCES parent (id) ON DELETE SET NULL ON UPDATE SET NULL) ENGINE=InnoDB
CREATE TABLE strict_kid (id INT PRIMARY KEY, pid INT, CONSTRAINT fk_strict FOREIGN KEY (pid) REFERENCES parent (id) ON DELETE RESTRICT) ENGINE=InnoDB
CREATE TABLE noact_kid (id INT PRIMARY KEY, pid INT, CONSTRAINT fk_noact FOREIGN KEY (pid) REFERENCES parent (id) ON DELETE NO ACTION ON UPDATE NO ACTION) ENGINE=InnoDB
INSERT INTO parent VALUES (1,'one'),(2,'two'),(3,'three'),(4,'four'),(5,'five')
INSERT INTO child VALUES (10,1,'a'),(11,1,'b'),(12,2,'c'),(13,NULL,'orphan ok')
INSERT INTO child VALUES (14,99,'bad')
INSERT INTO child VALUES (15,3,'ok'),(16,98,'bad row in a multi-row insert')
SELECT * FROM child ORDER BY id
INSERT INTO nullkid VALUES (20,2),(21,3)
INSERT INTO strict_kid VALUES (30,4)
INSERT INTO noact_kid VALUES (40,5)
UPDATE child SET pid = 97 WHERE id = 10
UPDATE child SET pid = 2 WHERE id = 10
SELECT * FROM child ORDER BY id
DELETE FROM parent WHERE id = 1
SELECT * FROM child ORDER BY id
UPDATE parent SET id = 7 WHERE id = 2
SELECT * FROM child ORDER BY id
SELECT * FROM nullkid ORDER BY id
DELETE FROM parent WHERE id = 3
SELECT * FROM child ORDER BY id
SELECT * FROM nullkid ORDER BY id
DELETE FROM parent WHERE id = 4
UPDATE parent SET id = 8 WHERE id = 4
DELETE FROM parent WHERE id = 5
UPDATE parent SET name = 'renamed' WHERE id = 5
SELECT * FROM parent ORDER BY id
mysql8: error 3730	DROP TABLE parent
TRUNCATE TABLE parent
DELETE FROM strict_kid
DELETE FROM noact_kid
DELETE FROM parent WHERE id IN (4,5)
SELECT * FROM parent ORDER BY id
INSERT INTO child VALUES (50,7,'x')
REPLACE INTO parent VALUES (7,'seven again')
SELECT * FROM child ORDER BY id
INSERT INTO parent VALUES (9,'nine') ON DUPLICATE KEY UPDATE name = 'dup'
INSERT INTO child VALUES (51,9,'y') ON DUPLICATE KEY UPDATE note = 'z'
INSERT IGNORE INTO child VALUES (52,96,'ignored')
SELECT * FROM child ORDER BY id
# Composite keys, a self-reference, a chain of cascades.
CREATE TABLE acct (region INT, num INT, PRIMARY KEY (region, num)) ENGINE=InnoDB
CREATE TABLE txn (id INT PRIMARY KEY, region INT, num INT, amount INT, KEY (region, num), CONSTRAINT fk_txn FOREIGN KEY (region, num) REFERENCES acct (region, num) ON DELETE CASCADE) ENGINE=InnoDB
INSERT INTO acct VALUES (1,1),(1,2),(2,1)
INSERT INTO txn VALUES (1,1,1,10),(2,1,2,20),(3,2,1,30),(4,2,2,40)
INSERT INTO txn VALUES (5,2,NULL,50)
DELETE FROM acct WHERE region = 1
SELECT * FROM txn ORDER BY id
CREATE TABLE emp (id INT PRIMARY KEY, boss INT, CONSTRAINT fk_boss FOREIGN KEY (boss) REFERENCES emp (id) ON DELETE CASCADE) ENGINE=InnoDB
INSERT INTO emp VALUES (1,NULL),(2,1),(3,2),(4,3),(5,1)
INSERT INTO emp VALUES (6,60)
DELETE FROM emp WHERE id = 2
SELECT * FROM emp ORDER BY id
CREATE TABLE g1 (id INT PRIMARY KEY) ENGINE=InnoDB
CREATE TABLE g2 (id INT PRIMARY KEY, g1 INT, FOREIGN KEY (g1) REFERENCES g1 (id) ON DELETE CASCADE) ENGINE=InnoDB
CREATE TABLE g3 (id INT PRIMARY KEY, g2 INT, FOREIGN KEY (g2) REFERENCES g2 (id) ON DELETE CASCADE) ENGINE=InnoDB
INSERT INTO g1 VALUES (1),(2)
INSERT INTO g2 VALUES (10,1),(20,2)
INSERT INTO g3 VALUES (100,10),(200,20),(101,10)
DELETE FROM g1 WHERE id = 1
SELECT * FROM g2 ORDER BY id
SELECT * FROM g3 ORDER BY id
# Transactions: a failed statement leaves the transaction's earlier work.
BEGIN
INSERT INTO g1 VALUES (3)
INSERT INTO g2 VALUES (30,3),(31,33)
INSERT INTO g2 VALUES (32,3)
COMMIT
SELECT * FROM g2 ORDER BY id
# foreign_key_checks = 0: loading a dump in any order.
SET foreign_key_checks = 0
CREATE TABLE late_child (id INT PRIMARY KEY, pid INT, CONSTRAINT fk_late FOREIGN KEY (pid) REFERENCES late_parent (id)) ENGINE=InnoDB
INSERT INTO late_child VALUES (1,1),(2,2)
CREATE TABLE late_parent (id INT PRIMARY KEY) ENGINE=InnoDB
INSERT INTO late_parent VALUES (1)
INSERT INTO child VALUES (60,95,'unchecked')
DELETE FROM parent WHERE id = 7
SET foreign_key_checks = 1
SELECT * FROM child ORDER BY id
INSERT INTO late_child VALUES (3,3)
INSERT INTO late_parent VALUES (2)
INSERT INTO late_child VALUES (3,2)
DELETE FROM late_parent WHERE id = 1
SELECT * FROM late_child ORDER BY id
# DDL on constraints.
ALTER TABLE strict_kid DROP FOREIGN KEY fk_strict
INSERT INTO strict_kid VALUES (31,94)
ALTER TABLE strict_kid ADD CONSTRAINT fk_strict2 FOREIGN KEY (pid) REFERENCES parent (id)
DELETE FROM strict_kid WHERE id = 31
ALTER TABLE strict_kid ADD CONSTRAINT fk_strict2 FOREIGN KEY (pid) REFERENCES parent (id)
INSERT INTO strict_kid VALUES (32,94)
ALTER TABLE strict_kid DROP FOREIGN KEY no_such_fk
mysql8: error 1826	ALTER TABLE noact_kid ADD CONSTRAINT fk_strict2 FOREIGN KEY (pid) REFERENCES parent (id)
# MySQL 8 shows an action not given as NO ACTION, MariaDB as RESTRICT (the same in InnoDB).
SELECT CONSTRAINT_NAME, TABLE_NAME, REFERENCED_TABLE_NAME, IF(UPDATE_RULE = 'NO ACTION', 'RESTRICT', UPDATE_RULE), IF(DELETE_RULE = 'NO ACTION', 'RESTRICT', DELETE_RULE) FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = 'fk' ORDER BY CONSTRAINT_NAME
SELECT CONSTRAINT_NAME, TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, POSITION_IN_UNIQUE_CONSTRAINT, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = 'fk' AND REFERENCED_TABLE_NAME IS NOT NULL ORDER BY CONSTRAINT_NAME, ORDINAL_POSITION
DROP TABLE child
DROP TABLE nullkid, strict_kid, noact_kid
DROP TABLE parent
