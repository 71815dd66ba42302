package e2e

// semWindowCorpus adds the window functions' statements to the
// data-semantics corpus (semCorpus): statements MySQL 8 and MariaDB
// answer alike. Where they differ, node/window*_test.go asserts MySQL 8's
// answer.
func semWindowCorpus(add func(mode, q string), quiet func(q string)) {
	// An aggregate over a frame is the aggregate of the frame's rows as
	// of a group (functions/windowagg.go): an empty frame's SUM, AVG,
	// MIN and MAX are NULL and its COUNT 0 (GMS sliced ROWS BETWEEN 1
	// PRECEDING AND 2 PRECEDING from -1: a caught panic; AVG of no rows
	// was NaN), an all-NULL frame's SUM NULL (was 0).
	quiet("CREATE TABLE t_wa (id INT PRIMARY KEY, g INT, v INT, d DOUBLE)")
	quiet("INSERT INTO t_wa VALUES (1, 1, 10, 1.5), (2, 1, NULL, NULL), (3, 1, 30, 2.25), (4, 2, NULL, NULL), (5, 2, 7, 0.1), (6, 2, 8, 0.2), (7, 3, NULL, NULL)")
	for _, q := range []string{
		"SELECT id, SUM(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 2 PRECEDING) s0, COUNT(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 2 PRECEDING) c0, AVG(v) OVER (ORDER BY id ROWS BETWEEN 2 FOLLOWING AND 1 FOLLOWING) a0, MIN(v) OVER (ORDER BY id ROWS BETWEEN 3 PRECEDING AND 2 PRECEDING) mn FROM t_wa ORDER BY id",
		"SELECT id, MAX(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 1 FOLLOWING AND 2 FOLLOWING) mx, SUM(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) s1, AVG(v) OVER (PARTITION BY g) ag, COUNT(*) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) cf FROM t_wa ORDER BY id",
		"SELECT id, SUM(d) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) sd, SUM(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) sv FROM t_wa ORDER BY id",
	} {
		add("strict", q)
	}
	// NTH_VALUE, which GMS lacked (1305), and BIT_AND, BIT_OR and
	// BIT_XOR OVER a window, which GMS evaluated per row (1105), planned
	// as window functions (rewrite/windowcalls.go, functions/windowcalls.go):
	// NTH_VALUE past the frame's end is NULL; BIT_AND of an empty frame
	// is all ones, BIT_OR 0.
	for _, q := range []string{
		"SELECT id, NTH_VALUE(id, 2) OVER (ORDER BY id) n2, NTH_VALUE(id, 1) OVER (PARTITION BY g ORDER BY v ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) n1, NTH_VALUE(v, 3) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) n3 FROM t_wa ORDER BY id",
		"SELECT id, BIT_OR(v) OVER (ORDER BY id) bo, BIT_AND(v) OVER (PARTITION BY g) ba, BIT_XOR(id) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) bx, BIT_AND(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 2 PRECEDING) be, BIT_OR(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 2 PRECEDING) bo0, BIT_XOR(v) OVER (PARTITION BY g ORDER BY v) bxv FROM t_wa ORDER BY id",
		"SELECT id, BIT_OR(v), BIT_AND(id) FROM t_wa GROUP BY id ORDER BY id",
	} {
		add("strict", q)
	}
	// FIRST_VALUE and LAST_VALUE over OVER () (GMS's failed: a nil
	// pointer in its plan, caught: 1105) and over empty frames.
	for _, q := range []string{
		"SELECT id, FIRST_VALUE(v) OVER () f, LAST_VALUE(id) OVER () l, FIRST_VALUE(id) OVER (ORDER BY g) f2, LAST_VALUE(id) OVER (ORDER BY g) l2, FIRST_VALUE(id) OVER (ORDER BY id ROWS BETWEEN 1 FOLLOWING AND 2 FOLLOWING) f3, LAST_VALUE(id) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING) l3 FROM t_wa ORDER BY id",
	} {
		add("strict", q)
	}
	// Window functions over grouped rows (rewrite/windowgroup.go): GMS
	// planned the grouping or the windows, never both (1105, "unable to
	// find field with index 4 in row of 2 columns").
	for _, q := range []string{
		"SELECT g, SUM(SUM(v)) OVER (ORDER BY g) s, RANK() OVER (ORDER BY COUNT(*)) r, COUNT(*), SUM(v), ROW_NUMBER() OVER (ORDER BY g DESC) rn FROM t_wa GROUP BY g ORDER BY g",
		"SELECT t_wa.g, SUM(v) AS sv, COUNT(g) OVER () FROM t_wa WHERE id > 1 GROUP BY g HAVING COUNT(*) > 1 ORDER BY sv DESC",
		"SELECT SUM(v), RANK() OVER (ORDER BY SUM(v)) FROM t_wa",
		"SELECT t_wa.g + 1 AS gg, MAX(v) - MIN(v) AS rng, LAG(MAX(v)) OVER w, FIRST_VALUE(t_wa.g) OVER w FROM t_wa GROUP BY t_wa.g WINDOW w AS (ORDER BY t_wa.g) ORDER BY gg",
		"SELECT g, BIT_OR(v), BIT_OR(BIT_OR(v)) OVER (ORDER BY g), NTH_VALUE(SUM(v), 2) OVER (ORDER BY g) FROM t_wa GROUP BY g ORDER BY g",
		"SELECT DISTINCT COUNT(*) OVER () FROM t_wa GROUP BY g",
		"SELECT g, COUNT(*) c, SUM(COUNT(*)) OVER (ORDER BY g ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t_wa GROUP BY g ORDER BY c DESC, g",
		"SELECT g, ROW_NUMBER() OVER (PARTITION BY g > 1 ORDER BY g) FROM t_wa WHERE v IS NOT NULL GROUP BY g ORDER BY g",
	} {
		add("strict", q)
	}
	// Named windows: one naming another adds ORDER BY or a frame
	// (windowcheck.go checks what MySQL refuses before the parser
	// rewrite inlines them).
	for _, q := range []string{
		"SELECT id, SUM(id) OVER (w ROWS UNBOUNDED PRECEDING) s1, SUM(id) OVER w s2, SUM(id) OVER w3 s3, COUNT(*) OVER (w4 ORDER BY id DESC) c FROM t_wa WINDOW w AS (ORDER BY id), w2 AS (PARTITION BY g), w3 AS (w2 ORDER BY id), w4 AS (PARTITION BY id > 3) ORDER BY id",
	} {
		add("strict", q)
	}
	// Without ORDER BY, rows leave in the window's order
	// (windowempty.go; GMS gave them in its input's order).
	for _, q := range []string{
		"SELECT id, FIRST_VALUE(id) OVER (ORDER BY id DESC), LAST_VALUE(id) OVER (ORDER BY id DESC) FROM t_wa",
		"SELECT id, SUM(id) OVER (ORDER BY g, id) FROM t_wa",
	} {
		add("strict", q)
	}
	// RANGE frames bounded by N PRECEDING or FOLLOWING
	// (functions/windowrange.go): GMS's took the whole partition when
	// the ORDER BY column held a NULL.
	quiet("CREATE TABLE t_wr (id INT PRIMARY KEY, d DATE, v INT, x DECIMAL(5,2))")
	quiet("INSERT INTO t_wr VALUES (1, '2024-01-01', 1, 1.5), (2, '2024-01-02', 2, 2.5), (3, '2024-01-04', 3, NULL), (4, '2024-01-04', 4, 4.25), (5, NULL, 5, 5)")
	for _, q := range []string{
		"SELECT id, SUM(v) OVER (ORDER BY x RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING) c, SUM(v) OVER (ORDER BY v DESC RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) e, SUM(v) OVER (ORDER BY x DESC RANGE BETWEEN CURRENT ROW AND 1 FOLLOWING) f, SUM(v) OVER (ORDER BY d RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) g, COUNT(*) OVER (ORDER BY x RANGE BETWEEN UNBOUNDED PRECEDING AND 2 PRECEDING) h, MAX(id) OVER (ORDER BY v RANGE 2 PRECEDING) i FROM t_wr ORDER BY id",
	} {
		add("strict", q)
	}
}
