// Package rewrite holds the rewrites of a statement that need nothing of
// Petrel's tables: text and parse-tree rewrites run before GMS plans a
// statement (aliases for a subquery's tables, named windows inlined, DO
// as a SELECT whose rows become an OK, EXPLAIN's formats) and analyzer
// rules over GMS's plan nodes alone (OR conditions factored, left join
// conditions pushed to their side, non-deterministic calls kept out of
// GMS's constant folding, MIN/MAX on an index's first column, DISTINCT
// with ORDER BY, LIKE's ESCAPE, ONLY_FULL_GROUP_BY's check, semi joins
// onto a grouped subquery planned as hash semi joins with their grouped
// side materialized). sqlengine installs them among its own rules
// (planrules.go), which keep what needs tables and statistics, and
// builds Materialized with GMS's builder. EXPLAIN's estimates and
// formats read tables and statistics and stay in sqlengine.
//
// Contract: every function is deterministic over its input (no I/O, no
// globals but the GMS rules a wrapper saves once at installation), and a
// rule that does not apply returns its node unchanged (transform.SameTree).
package rewrite
