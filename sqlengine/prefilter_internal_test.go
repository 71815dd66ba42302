package sqlengine

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestScanPrefilter: a filter's column-literal comparisons over a table
// scan are tested before the rest of each row is decoded: the answers
// equal the same filters written so that nothing is prefiltered (each
// column plus zero), and Petrel_prefiltered_rows grows by exactly the
// rows the comparisons turn down (NULLs included), for a whole-table
// scan, an aliased one in a join and a primary-key range; a comparison
// under OR is no necessary condition and turns nothing down.
func TestScanPrefilter(t *testing.T) {
	env := openStatsEnv(t, t.TempDir())
	defer env.close()
	env.must("CREATE DATABASE d")
	env.s.SetCurrentDatabase("d")
	env.must("CREATE TABLE li (id INT PRIMARY KEY, q DECIMAL(15,2), ship DATE, c VARCHAR(40), n INT)")
	env.must("CREATE TABLE part (pk INT PRIMARY KEY, name VARCHAR(20))")
	var v []string
	for i := 0; i < 2000; i++ {
		ship := fmt.Sprintf("'1995-%02d-%02d'", 1+i%12, 1+i%28)
		if i%97 == 0 {
			ship = "NULL"
		}
		v = append(v, fmt.Sprintf("(%d, %d.%02d, %s, 'row %d text', %d)", i, i%50, i%7, ship, i, i%13-6))
	}
	env.must("INSERT INTO li VALUES " + strings.Join(v, ","))
	env.must("INSERT INTO part VALUES (1, 'one'), (2, 'two'), (3, 'three')")
	env.must("CREATE TABLE pz (id INT PRIMARY KEY, s VARCHAR(10) COLLATE utf8mb4_general_ci, v INT)")
	env.must("INSERT INTO pz VALUES (1, 'A', 1), (2, 'a', 2), (3, 'b', 3), (4, 'B ', 4), (5, 'c', 5), (6, NULL, 6), (7, 'b  ', 7)")
	// Strings repeated row after row, under a binary and an accent- and
	// case-insensitive collation: a string's answer is remembered for
	// the rest of the scan, and must be its own.
	env.must("CREATE TABLE pm (id INT PRIMARY KEY, b VARCHAR(20) COLLATE utf8mb4_bin, ci VARCHAR(20) COLLATE utf8mb4_0900_ai_ci)")
	modes := []string{"AIR", "air", "AIR REG", "Air", "ÁIR", "AIR ", "TRUCK"}
	v = v[:0]
	for i := 0; i < 700; i++ {
		v = append(v, fmt.Sprintf("(%d, '%s', '%s')", i, modes[i%7], modes[(i/7)%7]))
	}
	env.must("INSERT INTO pm VALUES " + strings.Join(v, ","))
	rejected := func() int {
		s := env.must("SHOW GLOBAL STATUS LIKE 'Petrel_prefiltered_rows'")
		f := strings.Fields(strings.Trim(s, "[]"))
		n, err := strconv.Atoi(f[len(f)-1])
		if err != nil {
			t.Fatalf("status: %s", s)
		}
		return n
	}
	for _, c := range []struct {
		q, ref  string
		scanned int // rows the scan reads
		passing string
	}{
		{
			q:       "SELECT COUNT(*), SUM(q), MAX(c) FROM li WHERE ship >= '1995-09-01' AND ship < '1995-10-01'",
			ref:     "SELECT COUNT(*), SUM(q), MAX(c) FROM li WHERE ship + INTERVAL 0 DAY >= '1995-09-01' AND ship + INTERVAL 0 DAY < '1995-10-01'",
			scanned: 2000,
			passing: "SELECT COUNT(*) FROM li WHERE ship + INTERVAL 0 DAY >= '1995-09-01' AND ship + INTERVAL 0 DAY < '1995-10-01'",
		},
		{
			q:       "SELECT p.name, COUNT(*), SUM(a.q) FROM li AS a JOIN part p ON p.pk = a.n WHERE a.ship < '1995-03-01' AND a.q > 10 GROUP BY p.name ORDER BY p.name",
			ref:     "SELECT p.name, COUNT(*), SUM(a.q) FROM li AS a JOIN part p ON p.pk = a.n WHERE a.ship + INTERVAL 0 DAY < '1995-03-01' AND a.q + 0 > 10 GROUP BY p.name ORDER BY p.name",
			scanned: 2000,
			passing: "SELECT COUNT(*) FROM li WHERE ship + INTERVAL 0 DAY < '1995-03-01' AND q + 0 > 10",
		},
		{
			q:       "SELECT COUNT(*), SUM(q) FROM li WHERE id BETWEEN 100 AND 900 AND ship < '1995-06-01'",
			ref:     "SELECT COUNT(*), SUM(q) FROM li WHERE id + 0 BETWEEN 100 AND 900 AND ship + INTERVAL 0 DAY < '1995-06-01'",
			scanned: 801,
			passing: "SELECT COUNT(*) FROM li WHERE id + 0 BETWEEN 100 AND 900 AND ship + INTERVAL 0 DAY < '1995-06-01'",
		},
		{
			// Strings under a PAD SPACE collation: 'B ' is 'b'.
			q:       "SELECT COUNT(*), SUM(v) FROM pz WHERE s = 'b' AND v > 1",
			ref:     "SELECT COUNT(*), SUM(v) FROM pz WHERE CONCAT(s, '') = 'b' AND v + 0 > 1",
			scanned: 7,
			passing: "SELECT COUNT(*) FROM pz WHERE CONCAT(s, '') = 'b' AND v + 0 > 1",
		},
		{
			q:       "SELECT COUNT(*), SUM(v) FROM pz WHERE s IN ('a', 'B')",
			ref:     "SELECT COUNT(*), SUM(v) FROM pz WHERE CONCAT(s, '') = 'a' OR CONCAT(s, '') = 'B'",
			scanned: 7,
			passing: "SELECT COUNT(*) FROM pz WHERE CONCAT(s, '') = 'a' OR CONCAT(s, '') = 'B'",
		},
		{
			q:       "SELECT COUNT(*), SUM(id) FROM pm WHERE b IN ('AIR', 'AIR REG') AND ci = 'air'",
			ref:     "SELECT COUNT(*), SUM(id) FROM pm WHERE CONCAT(b, '') IN ('AIR', 'AIR REG') AND CONCAT(ci, '') = 'air'",
			scanned: 700,
			passing: "SELECT COUNT(*) FROM pm WHERE CONCAT(b, '') IN ('AIR', 'AIR REG') AND CONCAT(ci, '') = 'air'",
		},
		{
			q:       "SELECT COUNT(*), SUM(id) FROM pm WHERE b = 'air' AND ci > 'AIR'",
			ref:     "SELECT COUNT(*), SUM(id) FROM pm WHERE CONCAT(b, '') = 'air' AND CONCAT(ci, '') > 'AIR'",
			scanned: 700,
			passing: "SELECT COUNT(*) FROM pm WHERE CONCAT(b, '') = 'air' AND CONCAT(ci, '') > 'AIR'",
		},
		{
			q:       "SELECT COUNT(*), SUM(q) FROM li WHERE ship < '1995-02-01' OR q > 45",
			ref:     "SELECT COUNT(*), SUM(q) FROM li WHERE ship + INTERVAL 0 DAY < '1995-02-01' OR q + 0 > 45",
			scanned: 0, // nothing turned down
		},
	} {
		before := rejected()
		got, want := env.must(c.q), env.must(c.ref)
		if got != want || strings.HasPrefix(got, "[[0 ") {
			t.Errorf("%s: %s, the reference %s", c.q, got, want)
		}
		delta := rejected() - before
		wantDelta := 0
		if c.scanned > 0 {
			p, err := strconv.Atoi(strings.Trim(env.must(c.passing), "[]"))
			if err != nil {
				t.Fatal(err)
			}
			wantDelta = c.scanned - p
		}
		if delta != wantDelta {
			t.Errorf("%s: %d rows turned down before decoding, want %d", c.q, delta, wantDelta)
		}
	}
}
