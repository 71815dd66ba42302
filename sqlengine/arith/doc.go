// Package arith holds MySQL's arithmetic and conversions over GMS's
// expressions where GMS v0.20.0 differs from MySQL or is slow: integer
// + - * MOD and unary minus in integers (intarith.go), DECIMAL + - * in
// exact decimals, in an int64 when the digits fit (decarith.go), bit
// operations, casts from text to integers and from integers to dates,
// division by zero under strict modes (mysqlops.go), the number at the
// start of a string (strnum.go), date text as MySQL reads it
// (datetext.go), CAST to DECIMAL(p,s) clipped to its range
// (deccast.go), decimal literals kept exact (decliteral.go),
// constant filter operands folded once in the column's type
// (constfold.go), a column compared with a literal of its type directly
// (fastcmp.go), and exact SUM and AVG (exactagg.go).
//
// Contract: Operator and the rules give MySQL's value, type and
// warnings for every input, falling back to GMS's evaluation where their
// fast case does not hold, without evaluating a child twice. Nothing
// here reads a table; the session is read only through sql.Context
// (sql_mode).
package arith
