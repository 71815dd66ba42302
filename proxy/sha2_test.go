package proxy

import (
	"testing"

	vtmysql "github.com/dolthub/vitess/go/mysql"
)

func TestSha2Check(t *testing.T) {
	salt := []byte("01234567890123456789")
	as, err := vtmysql.SerializeCachingSha2PasswordAuthString("sha2-pw", salt, 5)
	if err != nil {
		t.Fatal(err)
	}
	ac := account{user: "u", host: "%", plugin: "caching_sha2_password", authString: string(as)}
	if !checkSha2Password(ac, "sha2-pw") || checkSha2Password(ac, "sha2-px") {
		t.Fatalf("check of %q", as)
	}
	var c sha2Cache
	c.put(ac, "sha2-pw")
	e, ok := c.get(ac)
	if !ok || !checkSha2Fast(e.stage2, salt, scrambleSHA256("sha2-pw", salt)) || checkSha2Fast(e.stage2, salt, scrambleSHA256("nope", salt)) {
		t.Fatal("fast path")
	}
}
