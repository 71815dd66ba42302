package sqlmode

import (
	"context"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/variables"
)

// TestLoadKeepsParsedModes: Load answers as GMS's LoadSqlMode does, for
// the session's current text, and parses each text once.
func TestLoadKeepsParsedModes(t *testing.T) {
	variables.InitSystemVariables()
	ctx := sql.NewContext(context.Background(), sql.WithSession(sql.NewBaseSession()))
	const mysql8 = "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"
	for _, text := range []string{mysql8, "ANSI_QUOTES", "", mysql8} {
		if err := ctx.SetSessionVariable(ctx, "sql_mode", text); err != nil {
			t.Fatal(err)
		}
		got, want := Load(ctx), sql.LoadSqlMode(ctx)
		if got.String() != want.String() {
			t.Errorf("sql_mode %q: Load gives %q, LoadSqlMode %q", text, got.String(), want.String())
		}
		for _, flag := range []string{"STRICT_TRANS_TABLES", "ANSI_QUOTES", "NO_ZERO_DATE"} {
			if got.ModeEnabled(flag) != want.ModeEnabled(flag) {
				t.Errorf("sql_mode %q: %s is %v, LoadSqlMode says %v", text, flag, got.ModeEnabled(flag), want.ModeEnabled(flag))
			}
		}
		if again := Load(ctx); again != got {
			t.Errorf("sql_mode %q: parsed again (a new *SqlMode on the second Load)", text)
		}
	}
	if !Load(ctx).ModeEnabled("STRICT_TRANS_TABLES") || Load(ctx).ModeEnabled("ANSI_QUOTES") {
		t.Errorf("after setting MySQL 8's default again: %q", Load(ctx).String())
	}
}

// BenchmarkLoad: Load against GMS's LoadSqlMode under MySQL 8's default.
func BenchmarkLoad(b *testing.B) {
	variables.InitSystemVariables()
	ctx := sql.NewContext(context.Background(), sql.WithSession(sql.NewBaseSession()))
	if err := ctx.SetSessionVariable(ctx, "sql_mode", "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"); err != nil {
		b.Fatal(err)
	}
	b.Run("Load", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Load(ctx)
		}
	})
	b.Run("LoadSqlMode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sql.LoadSqlMode(ctx)
		}
	})
}
