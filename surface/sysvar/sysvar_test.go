package sysvar

import (
	"errors"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

type testSettings struct{ N int64 }

// TestGlobalPushes: the default is applied at once, a global SET reaches
// every owner, a refused value changes nothing, a session's value is not
// the global setting.
func TestGlobalPushes(t *testing.T) {
	s := New(testSettings{})
	v := Global(s, &sql.MysqlSystemVariable{Name: "t_n", Scope: sql.GetMysqlScope(sql.SystemVariableScope_Both), Dynamic: true,
		Type: types.NewSystemIntType("t_n", 0, 100, false), Default: int64(3)},
		func(c *testSettings, v any) error {
			if Int(v) == 13 {
				return errors.New("unlucky")
			}
			c.N = Int(v)
			return nil
		})
	if s.Get().N != 3 {
		t.Fatalf("default: %d, want 3", s.Get().N)
	}
	var pushed []int64
	s.Push(func(c testSettings) { pushed = append(pushed, c.N) })
	ctx := sql.NewEmptyContext()
	if _, err := v.SetValue(ctx, int64(7), true); err != nil {
		t.Fatal(err)
	}
	if _, err := v.SetValue(ctx, int64(13), true); err == nil {
		t.Error("a refused value was accepted")
	}
	if _, err := v.SetValue(ctx, int64(9), false); err != nil {
		t.Fatal(err)
	}
	if s.Get().N != 7 || len(pushed) != 2 || pushed[0] != 3 || pushed[1] != 7 {
		t.Errorf("settings %d, pushed %v: want 7 and [3 7]", s.Get().N, pushed)
	}
}

func TestConversions(t *testing.T) {
	if Int(int8(1)) != 1 || Uint(uint64(18446744073709547520)) != 18446744073709547520 || Uint(int64(-1)) != 0 || !Bool(int8(1)) || Bool(int64(0)) || String("x") != "x" || String(1) != "" {
		t.Error("conversions")
	}
}
