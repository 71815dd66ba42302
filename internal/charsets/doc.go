// Package charsets installs MySQL's 8-bit character sets that GMS names
// but cannot encode (latin2, koi8r, koi8u, cp866, hebrew, latin5, cp1251,
// cp1250, greek, cp850, cp852, macroman) into GMS's character set and
// collation tables: encoders over golang.org/x/text's charmap, corrected
// where MySQL maps a byte differently, with MySQL's UPPER and LOWER, and
// the one-byte weights of each of their collations (eightbit.go). The
// corrections, case maps and weights were read from MariaDB by
// gen_eightbit.go (eightbit_tables.go), never copied from a server's
// source.
//
// Install runs before anything reads a column type: storage.Open (a
// table's stored column types name their character set) and
// sqlengine.New.
//
// Contract: a string of such a set is UTF-8 inside Petrel, as every other;
// its collation's weight of a character is MySQL's weight of its byte, so
// comparisons, GROUP BY and the storage keys built from the weights order
// and equate as MySQL does.
package charsets
