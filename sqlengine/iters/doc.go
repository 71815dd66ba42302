// Package iters holds row iterators Petrel builds in place of GMS's
// where GMS's are slow or tell values apart differently from MySQL:
// GROUP BY over exact binary keys, strings by their collation keys
// (groupiter.go), and hash joins over tuple keys, up to four BIGINTs as
// integers (hashlookup.go). sqlengine's exec override builds them
// (GroupBy, HashLookup) with GMS's builder for their children; a node
// they do not serve returns a nil iterator and GMS builds it.
//
// Contract: the rows, their order where GMS defines one, and the
// warnings are GMS's, under MySQL's collation rules.
package iters
