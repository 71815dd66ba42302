package e2e

// semSweepCorpus: the data-semantics sweep of 2026-12-01, statements
// whose answer MariaDB and MySQL 8 agree on.
func semSweepCorpus(add func(mode, q string), quiet func(q string)) {
	semSweepDates(add, quiet)
	semSweepCharUsing(add)
	semSweep4(add, quiet)
	semSweep5(add, quiet)  // semsweep5_test.go
	semSweepTZ(add, quiet) // semsweeptz_test.go
	// GREATEST and LEAST over TIMEs and dates with strings and numbers
	// among them compare as temporal values; numbers with strings as
	// DOUBLEs, warning 1292 for text that is no number; a BIGINT
	// UNSIGNED above 2^63-1 is an integer (functions/minmaxmodes.go; GMS
	// refused a TIME with 1105, dropped 'a' silently and failed on
	// 18446744073709551615 with 1105).
	quiet("CREATE TABLE t_swgl (id INT PRIMARY KEY, t TIME, d DATE, dt DATETIME, u BIGINT UNSIGNED)")
	quiet("INSERT INTO t_swgl VALUES (1, '10:00:00', '2020-01-01', '2019-01-01 10:00:00', 18446744073709551615), (2, '-01:00:00', '2021-06-30', '2022-01-01 00:00:00', 5)")
	for _, q := range []string{
		"SELECT id, LEAST(t, '09:00:00'), GREATEST(t, '9:0'), LEAST(t, CAST('11:00:00' AS TIME)), GREATEST(t, 100000), LEAST(t, -1), LEAST(t, 'abc') FROM t_swgl ORDER BY id",
		"SELECT id, GREATEST(d, dt), LEAST(d, dt), GREATEST(d, '2020-1-5'), LEAST(dt, '2020-01-01') FROM t_swgl ORDER BY id",
		"SELECT id, GREATEST(u, 1), LEAST(u, 7), GREATEST(u, 18446744073709551614) FROM t_swgl ORDER BY id",
		"SELECT LEAST('a', 1), GREATEST('a', 1), GREATEST('2', 10), LEAST('2x', 10), GREATEST('3', 2.5), LEAST(1e0, 'x1')",
		"SELECT LEAST(UTC_TIME(), t) <= t FROM t_swgl ORDER BY id",
	} {
		add("strict", q)
	}
	// A DOUBLE or FLOAT read as a string by a string function or a cast
	// is MySQL's my_gcvt text (functions/doubletext.go, castchar.go; GMS
	// wrote 1e15 as 1000000000000000 and a FLOAT with 8 digits).
	quiet("CREATE TABLE t_swdt (id INT PRIMARY KEY, d DOUBLE, f FLOAT)")
	quiet("INSERT INTO t_swdt VALUES (1, 1e15, 1.5e-7), (2, 123456789.123, 3.14159265), (3, 1e-5, 1e20), (4, -1.2345678901234568e17, -2.5)")
	for _, q := range []string{
		"SELECT id, CONCAT(d), CONCAT(f), CONCAT_WS(',', d, f), CAST(d AS CHAR), CAST(f AS CHAR), CAST(d AS CHAR(3)), LENGTH(d), REPLACE(d, '1', 'x'), LPAD(d, 30, '*'), UPPER(d), LEFT(d, 3), SUBSTRING(d, 2), REVERSE(d) FROM t_swdt ORDER BY id",
		"SELECT CONCAT(1e15), CAST(1e15 AS CHAR), CONCAT(1.5e-7), CONCAT(-1e-15), CONCAT(1e-16), CONCAT(1.2e16), CONCAT(1234567890123456.7e0), CONCAT(999999999999999e0), CONCAT(1e0/3), UPPER(1e20), LPAD(1e15, 6, 1e15), CHAR_LENGTH(1e100)",
	} {
		add("strict", q)
	}
}

// semSweepDates: DATE_ADD and DATE_SUB past the date range in a strict
// INSERT or UPDATE fail with 1441 (SQLSTATE 22008) as MySQL's, where a
// SELECT or a non-strict write has NULL with the warning
// (arith/dateinterval.go; Petrel stored NULL).
func semSweepDates(add func(mode, q string), quiet func(q string)) {
	quiet("CREATE TABLE t_swdd (id INT PRIMARY KEY, d DATE)")
	for _, mq := range [][2]string{
		{"strict", "INSERT INTO t_swdd (id, d) SELECT 1, DATE_SUB('2000-01-01', INTERVAL 2001 YEAR)"},
		{"strict", "INSERT INTO t_swdd VALUES (2, DATE_ADD('9999-12-31', INTERVAL 1 DAY))"},
		{"strict", "INSERT INTO t_swdd VALUES (3, '2000-01-01')"},
		{"strict", "UPDATE t_swdd SET d = d - INTERVAL 2001 YEAR WHERE id = 3"},
		{"strict", "INSERT IGNORE INTO t_swdd VALUES (4, DATE_ADD('9999-12-31', INTERVAL 1 DAY))"},
		{"nonstrict", "INSERT INTO t_swdd VALUES (5, DATE_SUB('2000-01-01', INTERVAL 2001 YEAR))"},
		{"strict", "SELECT id, d FROM t_swdd ORDER BY id"},
	} {
		add(mq[0], mq[1])
	}
}

// semSweepCharUsing: CHAR(n USING cs) whose bytes are no cs string is
// NULL with warning 1300; latin1's bytes decode (charusing.go; GMS
// failed with 1366, and LENGTH(CHAR(228 USING latin1)) panicked).
func semSweepCharUsing(add func(mode, q string)) {
	add("strict", "SELECT HEX(CHAR(228 USING utf8mb4)), CHAR(228 USING utf8mb4) IS NULL, HEX(CHAR(65, 228, 66 USING utf8mb4)), HEX(CHAR(0xC3A4 USING utf8mb4)), CHAR(0xC3A4 USING utf8mb4), CHAR(NULL, 65 USING utf8mb4)")
	add("strict", "SELECT HEX(CHAR(228 USING latin1)), LENGTH(CHAR(228 USING latin1)), CHAR_LENGTH(CHAR(228 USING latin1)), CHAR(228 USING latin1), HEX(CHAR(65, 66)), HEX(CHAR(256))")
}

// ---- sweep 4, 2026-12-01 ----

// semSweep4: the data-semantics sweep 4, statements MariaDB and MySQL 8
// agree on.
func semSweep4(add func(mode, q string), quiet func(q string)) {
	// CAST to CHAR(0) or BINARY(0) is '' with 1292 (castzero.go; GMS read
	// the length 0 as none and gave the value whole).
	quiet("CREATE TABLE t_sw4z (id INT PRIMARY KEY, s VARCHAR(10), n INT)")
	quiet("INSERT INTO t_sw4z VALUES (1, 'abc', 12), (2, '', NULL)")
	add("strict", "SELECT CAST('abc' AS CHAR(0)), CAST(12 AS CHAR(0)), CAST('' AS CHAR(0)), CONVERT('x', CHAR(0)), HEX(CAST('abc' AS BINARY(0))), CAST(NULL AS CHAR(0)), CAST('abc' AS CHAR)")
	add("strict", "SELECT id, CAST(s AS CHAR(0)), CAST(n AS CHAR(0)), CAST(s AS CHAR(0)) IS NULL FROM t_sw4z ORDER BY id")
	// A bit-value literal is a binary string (bitliteral.go; GMS made
	// b'101' a BIGINT UNSIGNED: HEX gave '5', a VARBINARY stored '65',
	// and 0b101 was an unknown column, 1054).
	add("strict", "SELECT HEX(b'101'), b'101' + 0, b'1000001', CONCAT(b'1000001'), HEX(b''), b'' = '', LENGTH(b'0000000001'), b'1000001' = 'A', b'101' = 5, b'101' < 10, 5 IN (b'101'), b'101' | 0")
	add("strict", "SELECT 0b101 + 0, HEX(0b101), 0b1000001 = 'A', 0b101 = 5, HEX(0b100000001), CAST(b'101' AS UNSIGNED)")
	quiet("CREATE TABLE t_sw4b (id INT PRIMARY KEY, b BIT(4), v VARBINARY(10), i INT)")
	add("strict", "INSERT INTO t_sw4b VALUES (1, b'1010', b'1000001', b'101'), (2, 0b11, 0b1000010, 0b111)")
	add("strict", "SELECT id, HEX(b), HEX(v), i FROM t_sw4b WHERE b > b'10' AND v = b'1000001' OR i = 0b111 ORDER BY id")
	quiet("CREATE TABLE t_sw4c AS SELECT b'101' a, 0x41 h, 0b1 o")
	add("strict", "SELECT COLUMN_NAME, COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 't_sw4c' ORDER BY ORDINAL_POSITION")
	add("strict", "SELECT HEX(a), HEX(h), HEX(o) FROM t_sw4c")
	// String functions and operators over a DOUBLE read MySQL's text of
	// it (functions/doubletext.go, doubletextops.go; GMS read 1e15 as
	// 1000000000000000: LOCATE('e', 1e15) was 0, 1e15 LIKE '1e%' 0).
	quiet("CREATE TABLE t_sw4d (id INT PRIMARY KEY, d DOUBLE, f FLOAT)")
	quiet("INSERT INTO t_sw4d VALUES (1, 1e15, 1.5e-7), (2, -2.5e-20, 3.14159265)")
	add("strict", "SELECT id, TRIM(d), TRIM(LEADING '1' FROM d), TRIM(f), LOCATE('e', d), INSTR(d, 'e'), POSITION('e' IN d), STRCMP(d, '1e15'), SOUNDEX(d), d LIKE '1e%', CRC32(d), ELT(1, d, 'x'), MAKE_SET(1, d), FIND_IN_SET('1e15', d), EXPORT_SET(1, d, 'n', ',', 3), d REGEXP '^1e', REGEXP_REPLACE(d, 'e', 'E'), REGEXP_SUBSTR(d, 'e.*'), CHAR_LENGTH(TRIM(f)) FROM t_sw4d ORDER BY id")
	add("strict", "SELECT TRIM(1e15), LOCATE('e', 1e15), INSTR(1e20, '2'), 1e15 LIKE '1e%', STRCMP(1e15, '1e15'), CRC32(1e15), ELT(2, 'a', 1e15), TRIM(BOTH '1' FROM 1e15)")
	// A derived table or view over date +/- INTERVAL or DATE_ADD
	// (arith/intervaluse.go; GMS's interval check took Petrel's DATE_ADD
	// for another function: 1105 "invalid use of an interval"), and
	// DATE_ADD of an integer read as its date digits (arith/numdate.go;
	// GMS: NULL with 1292).
	quiet("CREATE TABLE t_sw4i (id INT PRIMARY KEY, d DATE, n INT)")
	quiet("INSERT INTO t_sw4i VALUES (1, '2020-01-31', 20010101), (2, '2024-02-29', 990228)")
	add("strict", "SELECT * FROM (SELECT id, d + INTERVAL 1 DAY AS x, DATE_SUB(d, INTERVAL 1 MONTH) AS y FROM t_sw4i) s ORDER BY id")
	add("strict", "SELECT * FROM (SELECT id, d - INTERVAL 1 HOUR AS w, INTERVAL 2 DAY + d AS v FROM t_sw4i) s ORDER BY w")
	add("strict", "CREATE VIEW v_sw4i AS SELECT id, d + INTERVAL 1 DAY AS x, DATE_ADD(d, INTERVAL 1 MONTH) AS y, n + INTERVAL 2 DAY AS z FROM t_sw4i")
	add("strict", "SELECT id, x, y, z FROM v_sw4i ORDER BY id")
	add("strict", "SELECT id, n + INTERVAL 2 DAY, DATE_ADD(n, INTERVAL 1 HOUR), DATE_SUB(n, INTERVAL 1 DAY) FROM t_sw4i ORDER BY id")
	add("strict", "SELECT DATE_ADD(20010101, INTERVAL 2 DAY), 20010101 + INTERVAL 2 DAY, 20010101120000 + INTERVAL 1 SECOND, DATE_ADD(010101, INTERVAL 1 DAY), DATE_SUB(20240301, INTERVAL 1 DAY), 20011301 + INTERVAL 1 DAY")
	add("strict", "CREATE VIEW v_sw4j AS SELECT INTERVAL(55, 10) AS my_col")
	add("strict", "SELECT my_col FROM v_sw4j")
	// A DATETIME(n) expression prints n fraction digits (timefsp.go;
	// Petrel trusted only a column's precision: GREATEST of DATETIME(3)
	// values printed '10:00:00.5').
	quiet("CREATE TABLE t_sw4f (id INT PRIMARY KEY, a DATETIME(3), b DATETIME(3), c DATETIME(2))")
	quiet("INSERT INTO t_sw4f VALUES (1, '2020-01-01 10:00:00.5', '2020-01-01 09:00:00', '2020-01-01 09:00:00.1')")
	add("strict", "SELECT GREATEST(a, b), LEAST(a, b), CAST('2020-01-01 10:00:00.5' AS DATETIME(3)), COALESCE(a, b), a + INTERVAL 1 SECOND, GREATEST(a, c), CAST(a AS DATETIME(2)), CAST('2020-01-01' AS DATETIME(1)) FROM t_sw4f")
	add("strict", "SELECT MAX(a), MIN(b), MAX(c) FROM t_sw4f")
	// Row comparisons and a row IN a list or a subquery compare
	// component by component, NULL where a NULL decides (arith/rowcmp.go,
	// rowinsubq.go; GMS compared rows as values: (20, NULL) = (20, NULL)
	// was 1, (1, NULL) <> (1, 2) failed with 1105, and a row IN a
	// subquery matched a row of NULLs).
	add("strict", "SELECT (20, NULL) = (20, NULL), (20, NULL) = (21, NULL), (1, 2) = (1, 2), (NULL, 1) <=> (NULL, 1), (1, NULL) <> (1, 2), (1, NULL) < (2, 1), (1, NULL) <= (1, NULL), (1, 2, 3) >= (1, 2, 3), (1, 2, 3) > (1, 2, 2), (20, NULL) IN ((20, NULL)), (20, 30) IN ((20, NULL)), (40, 40) IN ((20, NULL)), (1, 2) IN ((1, 2), (3, 4)), (1, 2) NOT IN ((1, 3), (3, 4))")
	quiet("CREATE TABLE t_sw4x1 (k INT PRIMARY KEY, d1 INT, d2 INT)")
	quiet("CREATE TABLE t_sw4x2 (k INT PRIMARY KEY, d1 INT, d2 INT)")
	quiet("INSERT INTO t_sw4x1 VALUES (10, 10, 10), (20, 20, 20), (21, 20, NULL), (30, NULL, 30), (40, 40, 40)")
	quiet("INSERT INTO t_sw4x2 VALUES (10, 10, 10), (20, 20, 20), (21, 20, NULL), (30, NULL, 30)")
	add("strict", "SELECT k FROM t_sw4x1 WHERE (d1, d2) IN (SELECT d1, d2 FROM t_sw4x2) ORDER BY k")
	add("strict", "SELECT k FROM t_sw4x1 WHERE (d1, d2) IN (SELECT d1, d2 FROM t_sw4x2) IS UNKNOWN ORDER BY k")
	add("strict", "SELECT k FROM t_sw4x1 WHERE (d1, d2) IN (SELECT d1, d2 FROM t_sw4x2) IS FALSE ORDER BY k")
	add("strict", "SELECT k, (d1, d2) IN (SELECT d1, d2 FROM t_sw4x2), (d1, d2) NOT IN (SELECT d1, d2 FROM t_sw4x2), (d1, d2) = (20, 20), (d1, d2) IN ((20, 20), (10, 10)) FROM t_sw4x1 ORDER BY k")
	add("strict", "SELECT k FROM t_sw4x1 WHERE (d1, d2) IN ((20, NULL), (10, 10)) OR (d1, d2) = (40, NULL) ORDER BY k")
	// A row subquery IN a subquery likewise (MDEV-32868's cases).
	quiet("CREATE TABLE t_sw4y1 (a INT)")
	quiet("INSERT INTO t_sw4y1 VALUES (1)")
	quiet("CREATE TABLE t_sw4y2 (a INT, b INT)")
	quiet("INSERT INTO t_sw4y2 VALUES (NULL, NULL)")
	quiet("CREATE TABLE t_sw4y3 (a INT, b INT)")
	quiet("INSERT INTO t_sw4y3 VALUES (1, NULL), (NULL, 2)")
	add("strict", "SELECT (SELECT NULL, NULL) IN (SELECT 3, 4), (SELECT 1, 2) IN (SELECT 3, 4)")
	add("strict", "SELECT (SELECT NULL, NULL) IN (SELECT 1, 2 FROM t_sw4y1), (SELECT NULL, 2) IN (SELECT 1, 2 FROM t_sw4y1), (SELECT NULL, 3) IN (SELECT 1, 2 FROM t_sw4y1), (SELECT * FROM t_sw4y2) IN (SELECT 1, 2 FROM t_sw4y1), (SELECT 1, 2) IN (SELECT 1, 2 FROM t_sw4y1), (SELECT 3, 4) IN (SELECT 1, 2 FROM t_sw4y1), (SELECT 1, 2) IN (SELECT * FROM t_sw4y3), (SELECT NULL, 2) IN (SELECT * FROM t_sw4y3) FROM t_sw4y1")
	// A number compared with a date reads as a date, 0 as the zero date
	// (arith/numdatecmp.go; GMS compared the date with the number's
	// text: `WHERE created_at > 0` returned no row).
	quiet("CREATE TABLE t_sw4z2 (id INT PRIMARY KEY, dt DATETIME, d DATE, ts TIMESTAMP NULL, KEY (dt), KEY (d))")
	quiet("INSERT INTO t_sw4z2 VALUES (1, '2020-01-01 10:00:00', '2020-01-01', '2020-01-01 10:00:00'), (2, NULL, NULL, NULL), (3, '1999-12-31 23:59:59', '1999-12-31', NULL)")
	add("strict", "SELECT id, NOW() > 0, dt > 0, d > 0, ts > 0, dt > 20191231, d = 20200101, dt = 20200101100000, NOW() > 20000101, CURDATE() > 0, d >= 991231 FROM t_sw4z2 ORDER BY id")
	add("strict", "SELECT COUNT(*) FROM t_sw4z2 WHERE dt > 0")
	add("strict", "SELECT id FROM t_sw4z2 WHERE d = 20200101 OR dt < 20000101 ORDER BY id")
	add("strict", "SELECT id FROM t_sw4z2 WHERE d BETWEEN 19990101 AND 20000101 ORDER BY id")
	add("strict", "SELECT id, dt > 5, d > 5, d = 20200101.0, d < 99999999, dt BETWEEN 20190101 AND 20210101, d IN (20200101, 0), dt = 0, d > 2020 FROM t_sw4z2 ORDER BY id")
	// Date text with '.' (or '/' with a time) between its parts reads
	// as a date in CAST and the date functions (arith/datelayouts.go;
	// GMS: NULL with 1292, DATE('2002.11.12') failed the statement).
	add("strict", "SELECT CAST('2002.11.12' AS DATE), CAST('2002/11/12' AS DATE), CAST('2002.11.12 10:11:12' AS DATETIME), CAST('2002.11.12 10.11.12' AS DATETIME), DATE('2002.11.12'), YEAR('2002.11.12'), DATEDIFF('2002.11.12', '2002.11.10'), '2002.11.12' + INTERVAL 1 DAY, DATE_ADD('2002/1/2', INTERVAL 1 DAY), DATE_ADD('2002.1.2 10:00:00', INTERVAL 1 DAY)")
}
