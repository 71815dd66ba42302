package arith

import "github.com/dolthub/go-mysql-server/sql/types"

// MySQL reads a date with any punctuation between its parts
// ('2002.11.12', '2002/11/12 10.11.12'); GMS's text-to-DATETIME
// conversion, under CAST, DATE(), DATE_ADD, DATEDIFF and every date
// function, reads only the layouts of types.TimestampDatetimeLayouts,
// of '-' and '/' (CAST('2002.11.12' AS DATE) was NULL with 1292, and
// DATE('2002.11.12') failed the statement). Writes already read
// MySQL's forms (ParseDateText). InstallDateLayouts adds the '.' forms
// and '/' with a time to GMS's list, after its own (which keep their
// precedence).
var extraDateLayouts = []string{
	"2006.1.2",
	"2006.1.2 15:4:5.999999",
	"2006.1.2 15.4.5",
	"2006/1/2",
	"2006/1/2 15:4:5.999999",
}

// InstallDateLayouts adds extraDateLayouts to GMS's layouts; the caller
// runs it once, before any statement.
func InstallDateLayouts() {
	// A date alone stays one in DATE_ADD's text result ('2002.11.12' +
	// INTERVAL 1 DAY is '2002-11-13').
	types.DateOnlyLayouts = append(types.DateOnlyLayouts, "2006.1.2", "2006/1/2")
	types.TimestampDatetimeLayouts = append(types.TimestampDatetimeLayouts, extraDateLayouts...)
}
