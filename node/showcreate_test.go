package node_test

import "testing"

// SHOW CREATE TABLE writes a nullable column without a default as MySQL
// 8 does: DEFAULT NULL (timestamp NULL DEFAULT NULL), nothing for TEXT
// and BLOB, before a COMMENT; schema tools compare this text with
// MySQL's.
func TestShowCreateTableDefaultNull(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE d",
		"CREATE TABLE d.sc (id INT PRIMARY KEY, a INT, b VARCHAR(10) COMMENT 'bee', c TEXT, d TIMESTAMP NULL, e JSON, f INT DEFAULT 5, g DATETIME(3), h ENUM('x','y'), i DECIMAL(5,2) NOT NULL, j BLOB, k DOUBLE, `we``ird` INT, ts2 TIMESTAMP NULL DEFAULT CURRENT_TIMESTAMP)")
	var name, got string
	if err := db.QueryRow("SHOW CREATE TABLE d.sc").Scan(&name, &got); err != nil {
		t.Fatal(err)
	}
	want := "CREATE TABLE `sc` (\n" +
		"  `id` int NOT NULL,\n" +
		"  `a` int DEFAULT NULL,\n" +
		"  `b` varchar(10) DEFAULT NULL COMMENT 'bee',\n" +
		"  `c` text,\n" +
		"  `d` timestamp NULL DEFAULT NULL,\n" +
		"  `e` json DEFAULT NULL,\n" +
		"  `f` int DEFAULT '5',\n" +
		"  `g` datetime(3) DEFAULT NULL,\n" +
		"  `h` enum('x','y') DEFAULT NULL,\n" +
		"  `i` decimal(5,2) NOT NULL,\n" +
		"  `j` blob,\n" +
		"  `k` double DEFAULT NULL,\n" +
		"  `we``ird` int DEFAULT NULL,\n" +
		"  `ts2` timestamp NULL DEFAULT CURRENT_TIMESTAMP,\n" +
		"  PRIMARY KEY (`id`)\n" +
		") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci"
	if got != want {
		t.Fatalf("SHOW CREATE TABLE:\n%s\nwant\n%s", got, want)
	}
	// The text loads back as the same table.
	mustExec(t, db, "CREATE DATABASE d2", "USE d2", want)
	var again string
	if err := db.QueryRow("SHOW CREATE TABLE d2.sc").Scan(&name, &again); err != nil || again != want {
		t.Fatalf("reloaded: %v\n%s", err, again)
	}
}
