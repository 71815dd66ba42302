package node_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestLoadDataFormat loads files written in LOAD DATA's format, as
// MySQL reads them: escapes decoded (\t, \n, \\, \0, \Z, an escaped
// terminator kept), \N as NULL, enclosed fields with doubled enclosures
// and terminators inside, OPTIONALLY ENCLOSED, LINES STARTING BY,
// IGNORE n LINES, CRLF lines, too few fields (zero values, a warning
// 1261 for each) and too many (warning 1262), errors in strict mode. GMS dropped every escape character
// (\t read 't'), split lines at an escaped newline and needed every
// field enclosed; a LOAD DATA statement also panicked in the bit-literal
// rewrite (1105).
func TestLoadDataFormat(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE ld", "USE ld")
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name, table, body, clauses string
		want                       [][]string
		warnings                   []string
	}{
		{"escapes", "id INT PRIMARY KEY, v TEXT",
			"1\ta string\n2\ta tab \\t here\n3\ta newline \\n here\n4\tboth \\t\\n\n5\tback\\\\slash\n6\tan escaped\\\ttab\n7\t\\N\n8\tnul \\0 and \\Z\n9\tescaped line\\\nend\n",
			"",
			[][]string{{"1", "a string"}, {"2", "a tab \t here"}, {"3", "a newline \n here"}, {"4", "both \t\n"}, {"5", "back\\slash"},
				{"6", "an escaped\ttab"}, {"7", "NULL"}, {"8", "nul \x00 and \x1a"}, {"9", "escaped line\nend"}}, nil},
		{"enclosed", "id INT PRIMARY KEY, v VARCHAR(20), n INT",
			"1,\"a,b\",10\n2,\"say \"\"hi\"\"\",20\n3,plain,30\n4,\"multi\nline\",40\n5,NULL,\\N\n6,\"NULL\",60\n",
			"FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"'",
			[][]string{{"1", "a,b", "10"}, {"2", "say \"hi\"", "20"}, {"3", "plain", "30"}, {"4", "multi\nline", "40"}, {"5", "NULL", "NULL"}, {"6", "NULL", "60"}}, nil},
		{"lines", "id INT PRIMARY KEY, v VARCHAR(20)",
			"header line\r\nskip me\r\nxxx>1;one\r\nno prefix here\r\n>2;two\r\n",
			"FIELDS TERMINATED BY ';' LINES STARTING BY '>' TERMINATED BY '\\r\\n' IGNORE 1 LINES",
			[][]string{{"1", "one"}, {"2", "two"}}, nil},
		{"counts", "id INT PRIMARY KEY, v VARCHAR(20) DEFAULT 'dflt', w INT DEFAULT 7",
			"1\tx\n2\n3\ty\t9\textra\n",
			"",
			[][]string{{"1", "x", "0"}, {"2", "", "0"}, {"3", "y", "9"}}, []string{"1261", "1261", "1261", "1262"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.warnings != nil {
				// Warnings, not errors, outside strict mode.
				mustExec(t, db, "SET sql_mode = ''")
				defer mustExec(t, db, "SET sql_mode = DEFAULT")
			}
			mustExec(t, db, fmt.Sprintf("CREATE TABLE t_%s (%s)", c.name, c.table))
			p := write(c.name+".txt", c.body)
			if _, err := db.Exec(fmt.Sprintf("LOAD DATA INFILE '%s' INTO TABLE t_%s %s", p, c.name, c.clauses)); err != nil {
				t.Fatalf("LOAD DATA: %v", err)
			}
			var codes []string
			for _, w := range queryRows(t, db, "SHOW WARNINGS") {
				codes = append(codes, w[1])
			}
			if !reflect.DeepEqual(codes, c.warnings) {
				t.Errorf("warnings %v, want %v", codes, c.warnings)
			}
			got := queryRows(t, db, fmt.Sprintf("SELECT * FROM t_%s ORDER BY id", c.name))
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("rows\n%q\nwant\n%q", got, c.want)
			}
		})
	}
	// NULL: \N, and the word NULL unenclosed when ENCLOSED BY is given
	// (row 5); the enclosed word is the text (row 6).
	if got := queryRows(t, db, "SELECT id FROM t_enclosed WHERE v IS NULL OR n IS NULL ORDER BY id"); !reflect.DeepEqual(got, [][]string{{"5"}}) {
		t.Errorf("NULL rows %v, want [[5]]", got)
	}
	if got := queryRows(t, db, "SELECT id FROM t_escapes WHERE v IS NULL"); !reflect.DeepEqual(got, [][]string{{"7"}}) {
		t.Errorf("NULL rows %v, want [[7]]", got)
	}
	// In strict mode a short line is error 1261, and nothing is loaded.
	mustExec(t, db, "CREATE TABLE t_short (id INT PRIMARY KEY, v INT)")
	short := write("short.txt", "1\t2\n2\n")
	if _, err := db.Exec(fmt.Sprintf("LOAD DATA INFILE '%s' INTO TABLE t_short", short)); err == nil || !strings.Contains(err.Error(), "1261") {
		t.Fatalf("short line in strict mode: %v, want error 1261", err)
	}
	if n := queryRows(t, db, "SELECT COUNT(*) FROM t_short"); n[0][0] != "0" {
		t.Fatalf("%s rows loaded by the failed LOAD DATA", n[0][0])
	}
	// An empty field of a number column is 1366 in strict mode, as an
	// INSERT of '' is; nothing is loaded.
	mustExec(t, db, "CREATE TABLE t_strict (id INT PRIMARY KEY, n INT)")
	p := write("strict.txt", "1\t5\n2\t\n")
	_, err := db.Exec(fmt.Sprintf("LOAD DATA INFILE '%s' INTO TABLE t_strict", p))
	if err == nil || !strings.Contains(err.Error(), "1366") {
		t.Fatalf("empty number field in strict mode: %v, want error 1366", err)
	}
	if n := queryRows(t, db, "SELECT COUNT(*) FROM t_strict"); n[0][0] != "0" {
		t.Fatalf("%s rows loaded by the failed LOAD DATA", n[0][0])
	}
}
