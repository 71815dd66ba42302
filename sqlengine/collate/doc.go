// Package collate holds MySQL's string semantics where GMS v0.20.0 falls
// short or is slow: collation keys for GROUP BY, DISTINCT and COUNT
// (DISTINCT) (collkey.go), PAD SPACE comparisons and a column's
// collation in sorts (collcompare.go), ORDER BY keys for ASCII strings
// and numbers (sortcmp.go), LIKE over bytes (likefast.go), and rune
// weight tables installed over GMS's sorters (collsorter.go).
//
// Contract: the analyzer rules (Rule, SortRule, LikeRule) return a plan
// whose answers are GMS's under MySQL's collation rules, each wrapper
// falling back to GMS's own evaluation where its fast case does not hold
// and never evaluating a child twice (warnings would double). Nothing
// here reads a table or a session variable.
package collate
