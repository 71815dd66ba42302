// Package charset holds conversions between character sets as MySQL
// makes them (convertusing.go: CONVERT ... USING, introduced hex
// literals) and results in the client's character_set_results:
// an analyzer rule that converts result strings a client's character set
// cannot hold as MySQL does (clientresult.go), and encoders installed
// over GMS's that pass ASCII text through unconverted (resultenc.go;
// they reach GMS's character set table by go:linkname, as GMS v0.20.0
// has no way to replace an encoder; tableIsGMS checks the table against
// GMS's public API first, and nothing is written when it differs).
//
// Contract: a client reads the bytes MySQL would send for every value;
// the ASCII pass-through returns the encoder's own output for non-ASCII
// text.
package charset
