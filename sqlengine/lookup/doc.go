// Package lookup turns reads that GMS v0.20.0 plans as scans into index
// lookups keyed per outer row: a correlated subquery's conjunct pushed
// to its inner table and read by the index prefix it keys
// (correlated.go), and NOT IN / NOT EXISTS against a table read as an
// anti join by index lookup (antilookup.go). It reads tables through
// KeyTable and KeyIndex, which sqlengine's Table and Index implement;
// sqlengine's coster uses BestPrefix and TableEqualities for its
// estimates.
//
// Contract: a rewritten plan returns the rows of the plan it replaces;
// a filter turned into a lookup stays above it, rechecking its
// conditions.
package lookup
