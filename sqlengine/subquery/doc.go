// Package subquery remembers the results of a correlated scalar
// subquery within one execution of a read-only statement (subqmemo.go),
// and answers a whole group of outer rows with one run of the subquery
// grouped by its correlation columns when that is cheaper
// (subqgroup.go, MySQL's subquery-to-derived rewrite done at run time).
//
// Contract: a wrapped subquery returns for every outer row what GMS's
// evaluation returns; the memory lasts one execution and is bounded per
// subquery; Counters are the engine's Subquery_cache_hit and _miss.
// sqlengine installs Memo as an analyzer rule (planrules.go) with the
// engine's Counters.
package subquery
