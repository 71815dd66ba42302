// Package storeval stores values as MySQL does: a value converted to its
// column's type on every write path, refused under a strict sql_mode and
// clipped, truncated or zeroed with MySQL's warning otherwise (integers,
// DECIMAL, FLOAT and DOUBLE, YEAR, BIT, ENUM, SET, strings in the
// column's character set, dates and times: storevalue.go,
// storetypes.go), and lengths in characters for single-byte character
// sets (storetarget.go). sqlengine's exec override puts Source under an
// INSERT into a Petrel table and Update in UPDATE.
//
// Contract: every value written to a Petrel table passed through Value
// under the statement's Mode; a value refused leaves nothing written.
// The session is asked for a TIME column's precision (ColumnTimeFSP),
// nothing else.
package storeval
