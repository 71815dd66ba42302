package sqlstr

import "testing"

func TestLiteral(t *testing.T) {
	for in, want := range map[string]string{
		`'plain'`: "plain", `'it''s'`: "it's", `'it\'s'`: "it's", `"say ""hi"""`: `say "hi"`,
		`'a\nb\tc\\d'`: "a\nb\tc\\d", `'\%'`: `\%`, `'a\_b'`: `a\_b`, `''`: "", `'x\0y'`: "x\x00y", `  'pad'  `: "pad",
	} {
		got, ok := Literal(in)
		if !ok || got != want {
			t.Errorf("Literal(%s) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{`plain`, `'open`, `"mixed'`, `'`} {
		if _, ok := Literal(in); ok {
			t.Errorf("Literal(%s) read as a literal", in)
		}
	}
}
