// Package sqlmode holds the statement text as the session's sql_mode
// reads it, where vitess's parser does not look at sql_mode: string
// literals under NO_BACKSLASH_ESCAPES (modetext.go), `||` as CONCAT
// under PIPES_AS_CONCAT and NOT's precedence under HIGH_NOT_PRECEDENCE
// (pipesnot.go), each a rewrite of the text before it is parsed, with
// the offsets that map the rewritten text back to the client's; and the
// flags sql_mode ANSI stands for (On).
//
// Contract: a rewrite only inserts or replaces bytes outside string
// literals, quoted identifiers and comments, and returns the text
// unchanged (and no offsets) when the modes are off.
package sqlmode
