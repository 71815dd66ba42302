// Package storedfn reads the statements of stored functions, which
// vitess does not parse: CREATE FUNCTION (its name, parameters, return
// type, characteristics and body) and DROP FUNCTION, and writes the
// hidden procedure a function runs as: its parameters as IN parameters,
// OUT parameters for the value returned and for whether a RETURN ran,
// and its body inside a labelled block where each RETURN sets both and
// leaves. StatementEnd finds where a CREATE FUNCTION ends in a text of
// several statements (its body's compound statements hold ';'s).
//
// Contract: pure functions of the statement text (sqlmode's tokens);
// sqlengine keeps, runs and logs the functions (storedfuncs.go).
package storedfn
