package sqlengine

import (
	"testing"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// Every byte an auth string may hold survives quoteString and the parser
// of the replica that reads the logged statement (caching_sha2_password
// strings hold control characters, quotes and backslashes).
func TestQuoteStringRoundTrip(t *testing.T) {
	var all []byte
	for c := 0; c < 128; c++ {
		all = append(all, byte(c))
	}
	for _, s := range []string{"", "*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19", `it's a \ test`, string(all)} {
		q := "CREATE USER " + accountName("o'brien", "10.%") + " IDENTIFIED WITH 'caching_sha2_password' AS " + quoteString(s)
		st, err := ast.Parse(q)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		cu := st.(*ast.CreateUser)
		u := cu.Users[0]
		if u.Name != "o'brien" || u.Host != "10.%" || u.Auth1 == nil || u.Auth1.Identity != s {
			t.Fatalf("%q parsed as user %q host %q auth %+v", q, u.Name, u.Host, u.Auth1)
		}
	}
}
