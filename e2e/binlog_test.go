package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// allTypesTable has one column of every type Petrel logs.
const allTypesTable = `CREATE TABLE ty.all_types (id INT PRIMARY KEY, ti TINYINT, tiu TINYINT UNSIGNED,
	si SMALLINT, siu SMALLINT UNSIGNED, mi MEDIUMINT, miu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED,
	bi BIGINT, biu BIGINT UNSIGNED, de DECIMAL(10,3), fl FLOAT, db DOUBLE, ch CHAR(5), vc VARCHAR(20),
	tx TEXT, bl BLOB, vb VARBINARY(8), da DATE, tm TIME, dt DATETIME(6), ts TIMESTAMP(2), yr YEAR,
	js JSON, en ENUM('red','green'), st SET('a','b','c'), bt BIT(12))`

const allTypesRow = `INSERT INTO ty.all_types VALUES (1, -5, 250, -300, 65000, -70000, 16000000, -7, 4000000000,
	-9000000000, 18000000000000000000, -123.456, 1.5, 3.25, 'ab', 'héllo', 'long text', x'41ff10', x'cafe',
	'2024-01-02', '-12:34:56', '2024-01-02 03:04:05.123456', '2024-05-06 07:08:09.12', 2024,
	'{"k": [1, "v"]}', 'green', 'a,c', b'101000000001')`

// What mariadb-binlog -v prints for row 1 (MariaDB's own conventions:
// integers as signed with the unsigned reading in brackets when they
// differ, DATE with colons, TIMESTAMP as epoch seconds, ENUM as its index,
// SET and BIT as bit strings), and what `petrel binlog -v` prints.
var mariaWant = []string{
	"@1=1", "@2=-5 (251)", "@3=-6 (250)", "@4=-300 (65236)", "@5=-536 (65000)", "@6=-70000 (16707216)",
	"@7=-777216 (16000000)", "@8=-7 (4294967289)", "@9=-294967296 (4000000000)",
	"@10=-9000000000 (18446744064709551616)", "@11=-446744073709551616 (18000000000000000000)",
	"@12=-123.456", "@13=1.5", "@14=3.25", "@15='ab'", "@16='héllo'", "@17='long text'",
	// BLOB bytes below 0x20 are escaped, others printed raw.
	"@18='A\xff\\x10'", "@19='\xca\xfe'", "@20='2024:01:02'", "@21='-12:34:56.000000'",
	"@22='2024-01-02 03:04:05.123456'", "@24=2024", `@25='{"k": [1, "v"]}'`,
	"@26=2", "@27=b'00000101'", "@28=b'101000000001'",
}

var petrelWant = []string{
	"@1=1", "@2=-5", "@3=250", "@4=-300", "@5=65000", "@6=-70000", "@7=16000000", "@8=-7", "@9=4000000000",
	"@10=-9000000000", "@11=18000000000000000000", "@12=-123.456", "@14=3.25", "@15='ab'", "@16='héllo'",
	"@17='long text'", "@20='2024:01:02'", "@22='2024-01-02 03:04:05.123456'", "@24=2024",
	`@25='{"k": [1, "v"]}'`, "@26=2", "@28=b'101000000001'",
}

// rowLines returns the "###   @N=value" lines, trimmed.
func rowLines(out string) []string {
	var ls []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "###   @") {
			ls = append(ls, strings.TrimSpace(strings.TrimPrefix(l, "###")))
		}
	}
	return ls
}

func checkLines(t *testing.T, who string, got, want []string) {
	t.Helper()
	have := map[string]bool{}
	for _, l := range got {
		have[l] = true
	}
	for _, w := range want {
		if !have[w] {
			t.Errorf("%s: missing %q in\n%s", who, w, strings.Join(got, "\n"))
		}
	}
}

// TestMariaDBBinlogReadsPetrelBinlog: a tool nobody here wrote reads
// Petrel's binlog and prints every column type's value, and the NULL row.
func TestMariaDBBinlogReadsPetrelBinlog(t *testing.T) {
	tool := requireTool(t, "mariadb-binlog", "/usr/bin/mariadb-binlog")
	ctx := testContext(t, 2*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	db := rootDB(t, p, "")
	mustExec(t, ctx, db, "CREATE DATABASE ty", allTypesTable, allTypesRow, "INSERT INTO ty.all_types (id) VALUES (2)",
		"UPDATE ty.all_types SET vc = 'changed' WHERE id = 1", "DELETE FROM ty.all_types WHERE id = 2", "FLUSH BINARY LOGS")
	file := filepath.Join(p.Datadir(), "binlog", "binlog.000001")

	out, err := exec.CommandContext(ctx, tool, "-v", "--base64-output=DECODE-ROWS", "--verify-binlog-checksum", file).CombinedOutput()
	if err != nil {
		t.Fatalf("mariadb-binlog: %v\n%s", err, tail(string(out), 4000))
	}
	text := string(out)
	got := rowLines(text)
	checkLines(t, "mariadb-binlog", got, mariaWant)
	if n := strings.Count(text, "### INSERT INTO `ty`.`all_types`"); n != 2 {
		t.Errorf("mariadb-binlog shows %d inserts, want 2", n)
	}
	if n := strings.Count(text, "### UPDATE `ty`.`all_types`"); n != 1 {
		t.Errorf("mariadb-binlog shows %d updates, want 1", n)
	}
	if n := strings.Count(text, "### DELETE FROM `ty`.`all_types`"); n != 1 {
		t.Errorf("mariadb-binlog shows %d deletes, want 1", n)
	}
	nulls := 0
	for _, l := range got {
		if strings.HasSuffix(l, "=NULL") {
			nulls++
		}
	}
	// Row 2 is NULL in 27 columns, inserted then deleted: 54 NULLs.
	if nulls != 54 {
		t.Errorf("mariadb-binlog shows %d NULL values, want 54", nulls)
	}

	// Petrel's own printer agrees and reports each transaction's GTID.
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pout, err := exec.CommandContext(ctx, bin, "binlog", "-v", file).CombinedOutput()
	if err != nil {
		t.Fatalf("petrel binlog: %v\n%s", err, tail(string(pout), 4000))
	}
	checkLines(t, "petrel binlog", rowLines(string(pout)), petrelWant)
	if n := strings.Count(string(pout), "# transaction "); n != 6 {
		t.Errorf("petrel binlog reports %d transactions, want 6 (2 DDL, 4 DML)", n)
	}
}
