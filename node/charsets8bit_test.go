package node_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestEightBitCharsetClient: a koi8r client (SET NAMES koi8r through the
// driver's charset) sends KOI8-R bytes, which are stored as the Cyrillic
// characters they are, in a koi8r column and in a utf8mb4 one, and reads
// them back as KOI8-R bytes; a utf8mb4 client reads the same characters
// as UTF-8. The koi8r column's index orders and finds them as
// koi8r_general_ci does (MariaDB's answers: case-insensitive, 'Ё' after
// every other letter).
func TestEightBitCharsetClient(t *testing.T) {
	n, open := startNode(t)
	utf := open("")
	utf.SetMaxOpenConns(1)
	mustExec(t, utf, "CREATE DATABASE k8",
		"CREATE TABLE k8.t (id INT PRIMARY KEY, s VARCHAR(10) CHARACTER SET koi8r, u VARCHAR(10) CHARACTER SET utf8mb4, KEY (s))")
	koi := openWith(t, n, "k8", func(c *mysql.Config) { c.Params = map[string]string{"charset": "koi8r"} })
	if got := fmt.Sprint(queryRows(t, koi, "SELECT @@character_set_client, @@character_set_results, @@collation_connection")); got != "[[koi8r koi8r koi8r_general_ci]]" {
		t.Fatalf("charset=koi8r client: %s", got)
	}
	// 'Привет' and others in KOI8-R bytes.
	mustExec(t, koi, "INSERT INTO t VALUES (1, '\xf0\xd2\xc9\xd7\xc5\xd4', '\xf0\xd2\xc9\xd7\xc5\xd4'), (2, '\xe1\xc2\xd7', 'x'), (3, '\xc1\xc2\xd7', 'y'), (4, '\xb3', 'z'), (5, '\xe5', 'w')")
	if _, err := koi.Exec("INSERT INTO t VALUES (?, ?, ?)", 6, "\xf1", "\xd1"); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(queryRows(t, utf, "SELECT id, s, HEX(s), u, LENGTH(s), CHAR_LENGTH(s), LENGTH(u), UPPER(s), LOWER(s) FROM k8.t ORDER BY id"))
	want := "[[1 Привет F0D2C9D7C5D4 Привет 6 6 12 ПРИВЕТ привет] [2 Абв E1C2D7 x 3 3 1 АБВ абв] [3 абв C1C2D7 y 3 3 1 АБВ абв] [4 Ё B3 z 1 1 1 Ё ё] [5 Е E5 w 1 1 1 Е е] [6 Я F1 я 1 1 2 Я я]]"
	if got != want {
		t.Errorf("stored, read by a utf8mb4 client:\n got %s\nwant %s", got, want)
	}
	if got := fmt.Sprint(queryRows(t, koi, "SELECT s, u FROM t WHERE id = 1")); got != fmt.Sprint([][]string{{"\xf0\xd2\xc9\xd7\xc5\xd4", "\xf0\xd2\xc9\xd7\xc5\xd4"}}) {
		t.Errorf("read by the koi8r client: %q", got)
	}
	// koi8r_general_ci through the index: equal ignoring case, 'Ё' (0xB3)
	// between 'Е' and 'Ж'.
	for q, want := range map[string]string{
		"SELECT id FROM t ORDER BY s, id":                               "[[2] [3] [5] [4] [1] [6]]",
		"SELECT id FROM t WHERE s = '\xc1\xc2\xd7' ORDER BY id":         "[[2] [3]]",
		"SELECT id FROM t WHERE s > '\xf0' ORDER BY s, id":              "[[1] [6]]",
		"SELECT id FROM t FORCE INDEX (s) WHERE s >= '\xe5' ORDER BY s": "[[5] [4] [1] [6]]",
		"SELECT COUNT(DISTINCT s) FROM t":                               "[[5]]",
	} {
		if got := fmt.Sprint(queryRows(t, koi, q)); got != want {
			t.Errorf("%q: %s, want %s", q, got, want)
		}
	}
	// A latin2 column takes the Polish letters and refuses a Cyrillic one.
	mustExec(t, utf, "CREATE TABLE k8.l (id INT PRIMARY KEY, s CHAR(3) CHARACTER SET latin2)", "INSERT INTO k8.l VALUES (1, 'ąŁż')")
	if got := fmt.Sprint(queryRows(t, utf, "SELECT HEX(s), UPPER(s), HEX(LOWER(s)) FROM k8.l")); got != "[[B1A3BF ĄŁŻ B1B3BF]]" {
		t.Errorf("latin2 'ąŁż': %s", got)
	}
	if _, err := utf.Exec("INSERT INTO k8.l VALUES (2, 'Я')"); errno(t, err) != 1366 {
		t.Errorf("'Я' into latin2: %v, want 1366", err)
	}
}

// TestConvertToCharacterSet: ALTER TABLE ... CONVERT TO CHARACTER SET
// converts every character column and the table's default, keeps the
// values' characters and orders the index by the new collation; a value
// the new set cannot hold fails the statement with 1366 and leaves the
// table as it was (Petrel refused the statement, 1235).
func TestConvertToCharacterSet(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE cv",
		"CREATE TABLE cv.t (id INT PRIMARY KEY, s VARCHAR(10), e ENUM('a','é'), b VARBINARY(4), n INT, KEY (s)) DEFAULT CHARSET=latin1",
		"INSERT INTO cv.t VALUES (1, 'été', 'é', 0xFF, 1), (2, 'Zed', 'a', NULL, 2), (3, 'abc', NULL, 0x00, 3)",
		"ALTER TABLE cv.t CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
	want := "CREATE TABLE `t` (\n  `id` int NOT NULL,\n  `s` varchar(10) DEFAULT NULL,\n  `e` enum('a','é') DEFAULT NULL,\n  `b` varbinary(4) DEFAULT NULL,\n  `n` int DEFAULT NULL,\n  PRIMARY KEY (`id`),\n  KEY `s` (`s`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"
	if got := queryRows(t, db, "SHOW CREATE TABLE cv.t"); got[0][1] != want {
		t.Errorf("SHOW CREATE TABLE after CONVERT TO utf8mb4:\n%s", got[0][1])
	}
	// utf8mb4_bin: 'Zed' before 'abc', through the index too.
	if got := fmt.Sprint(queryRows(t, db, "SELECT id, s, HEX(s), e, HEX(b), n FROM cv.t ORDER BY s")); got != "[[2 Zed 5A6564 a NULL 2] [3 abc 616263 NULL 00 3] [1 été C3A974C3A9 é FF 1]]" {
		t.Errorf("rows after CONVERT TO utf8mb4: %s", got)
	}
	if got := fmt.Sprint(queryRows(t, db, "SELECT id FROM cv.t FORCE INDEX (s) WHERE s >= 'a' ORDER BY s")); got != "[[3] [1]]" {
		t.Errorf("index range after CONVERT TO utf8mb4_bin: %s", got)
	}
	// Back to latin1 with a character it lacks: 1366, nothing changed.
	mustExec(t, db, "INSERT INTO cv.t VALUES (4, 'Ā', 'a', NULL, 4)")
	if _, err := db.Exec("ALTER TABLE cv.t CONVERT TO CHARACTER SET latin1"); errno(t, err) != 1366 {
		t.Errorf("CONVERT TO latin1 with 'Ā' stored: %v, want 1366", err)
	}
	if got := queryRows(t, db, "SHOW CREATE TABLE cv.t"); got[0][1] != want {
		t.Errorf("SHOW CREATE TABLE after the failed CONVERT:\n%s", got[0][1])
	}
	if got := fmt.Sprint(queryRows(t, db, "SELECT COUNT(*), MAX(s) FROM cv.t")); got != "[[4 Ā]]" {
		t.Errorf("rows after the failed CONVERT: %s", got)
	}
	// A hebrew table's LRM and RLM become their UTF-8 forms (mtr ctype_hebrew).
	mustExec(t, db, "CREATE TABLE cv.h (a CHAR(1)) DEFAULT CHARSET=hebrew", "INSERT INTO cv.h VALUES (0xFD), (0xFE)",
		"ALTER TABLE cv.h CONVERT TO CHARACTER SET utf8")
	if got := fmt.Sprint(queryRows(t, db, "SELECT HEX(a), COLLATION(a) FROM cv.h ORDER BY 1")); got != "[[E2808E utf8mb3_general_ci] [E2808F utf8mb3_general_ci]]" {
		t.Errorf("hebrew LRM/RLM after CONVERT TO utf8: %s", got)
	}
}

// TestSetNamesClearsWarnings: SET NAMES is no diagnostic statement, so it
// clears the conditions of the statement before it, as MySQL: its OK
// packet counted them (mysqltest printed a DROP's note after SET NAMES,
// mtr ctype_hebrew).
func TestSetNamesClearsWarnings(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE w", "DROP TABLE IF EXISTS w.nothere")
	if got := one(t, db, "SHOW COUNT(*) WARNINGS"); got != "1" {
		t.Fatalf("warnings after DROP TABLE IF EXISTS of no table: %s", got)
	}
	for _, stmt := range []string{"SET NAMES hebrew", "SET CHARACTER SET koi8r"} {
		mustExec(t, db, "DROP TABLE IF EXISTS w.nothere", stmt)
		if got := fmt.Sprint(queryRows(t, db, "SHOW WARNINGS")); got != "[]" {
			t.Errorf("SHOW WARNINGS after %s: %s", stmt, got)
		}
	}
}

// TestSetBinaryValue: BINARY as a SET value (MySQL's grammar takes it;
// vitess's refused it, 1064): the character set variables take it, and
// BINARY the operator still casts.
func TestSetBinaryValue(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "SET character_set_connection=binary", "SET @@session.character_set_results = binary, @b = BINARY 'x'")
	if got := fmt.Sprint(queryRows(t, db, "SELECT @@character_set_connection, @@collation_connection, @@character_set_results, HEX(@b), CHARSET(@b), CHARSET('a')")); got != "[[binary binary binary 78 binary binary]]" {
		t.Errorf("after SET ... = binary: %s", got)
	}
}

// TestAlterDatabaseWithoutName: ALTER DATABASE without a name alters the
// current database, and with none selected is MySQL's 1046 (GMS: 1049,
// an unknown database of an empty name); a name longer than 64
// characters is 1102 (GMS: 1049).
func TestAlterDatabaseWithoutName(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("ALTER DATABASE DEFAULT CHARACTER SET latin2"); errno(t, err) != 1046 {
		t.Errorf("ALTER DATABASE with no database selected: %v, want 1046", err)
	}
	if _, err := db.Exec("ALTER DATABASE " + strings.Repeat("a", 65) + " DEFAULT CHARACTER SET latin2"); errno(t, err) != 1102 {
		t.Errorf("ALTER DATABASE of a 65-character name: %v, want 1102", err)
	}
	mustExec(t, db, "CREATE DATABASE ad DEFAULT CHARACTER SET latin7", "USE ad", "ALTER DATABASE DEFAULT CHARACTER SET latin2")
	if got := fmt.Sprint(queryRows(t, db, "SELECT DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'ad'")); got != "[[latin2 latin2_general_ci]]" {
		t.Errorf("after ALTER DATABASE DEFAULT CHARACTER SET latin2: %s", got)
	}
}

// TestInvalidUTF8Identifier: a name a DDL statement would create must be
// valid UTF-8, as MySQL's 1300 says, from a utf8mb4 client or a binary one
// (their bytes are not decoded); a valid non-ASCII name is taken (mtr
// ctype_recoding; GMS created the table).
func TestInvalidUTF8Identifier(t *testing.T) {
	n, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE iu")
	bin := openWith(t, n, "iu", func(c *mysql.Config) { c.Params = map[string]string{"charset": "binary"} })
	for _, c := range []*sql.DB{db, bin} {
		for _, q := range []string{
			"CREATE TABLE iu.`good\xd0\xcc\xcf\xc8\xcf` (a int)",
			"CREATE TABLE iu.t (`\xff` int)",
			"CREATE DATABASE `d\xe9`",
		} {
			_, err := c.Exec(q)
			if errno(t, err) != 1300 {
				t.Errorf("%q: %v, want 1300", q, err)
			}
		}
	}
	if _, err := db.Exec("CREATE TABLE iu.`good\xd0\xcc\xcf\xc8\xcf` (a int)"); err == nil || !strings.Contains(err.Error(), `Invalid utf8mb3 character string: 'good\xD0\xCC\xCF\xC8\xCF'`) {
		t.Errorf("message: %v", err)
	}
	mustExec(t, db, "CREATE TABLE iu.`таблица` (`столбец` int)")
	if got := fmt.Sprint(queryRows(t, db, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'iu'")); got != "[[таблица]]" {
		t.Errorf("tables of iu: %s", got)
	}
}
