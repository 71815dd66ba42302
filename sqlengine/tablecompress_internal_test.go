package sqlengine

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"petrel/sqlengine/sqlerr"

	"github.com/dolthub/vitess/go/mysql"
)

// debianText is real text Debian ships on every system (licence texts,
// the packages' copyright files).
func debianText(t *testing.T, want int) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, pat := range []string{"/usr/share/common-licenses/*", "/usr/share/doc/*/copyright"} {
		files, _ := filepath.Glob(pat)
		slices.Sort(files)
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil {
				buf.Write(b)
			}
			if buf.Len() >= want {
				return buf.Bytes()[:want]
			}
		}
	}
	t.Fatalf("only %d bytes of text in /usr/share/common-licenses and /usr/share/doc/*/copyright, want %d", buf.Len(), want)
	return nil
}

// errNum is the MySQL error number a client would get for err.
func errNum(err error) int {
	var se *mysql.SQLError
	if errors.As(sqlerr.ToMySQL(err), &se) {
		return se.Num
	}
	return 0
}

// TestTableCompressionSQL: CREATE TABLE's ROW_FORMAT, KEY_BLOCK_SIZE and
// COMPRESSION are kept (SHOW CREATE TABLE prints them back, before the
// COMMENT, also after a restart), values
// InnoDB refuses get its error and create nothing, the same real text
// loaded into a plain and a compressed table reads back identical, and
// information_schema.TABLES reports the compressed table's files smaller.
func TestTableCompressionSQL(t *testing.T) {
	dir := t.TempDir()
	env := openStatsEnv(t, dir)
	env.must("CREATE DATABASE tc")
	env.s.SetCurrentDatabase("tc")
	env.must("CREATE TABLE plain (id INT PRIMARY KEY, body TEXT, KEY b (body(16)))")
	env.must("CREATE TABLE comp (id INT PRIMARY KEY, body TEXT, KEY b (body(16))) ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8 COMMENT='it''s text'")
	env.must("CREATE TABLE z (id INT PRIMARY KEY) COMPRESSION='ZSTD'")

	for _, c := range []struct {
		q   string
		num int
	}{
		{"CREATE TABLE bad1 (id INT) KEY_BLOCK_SIZE=3", 1031},
		{"CREATE TABLE bad2 (id INT) ROW_FORMAT=DYNAMIC KEY_BLOCK_SIZE=8", 1031},
		{"CREATE TABLE bad3 (id INT) COMPRESSION='bogus'", 1210},
	} {
		_, err := env.query(c.q)
		if got := errNum(err); got != c.num {
			t.Errorf("%s: error %v (number %d), want %d", c.q, err, got, c.num)
		}
	}
	if got := env.must("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='tc' AND TABLE_NAME LIKE 'bad%'"); got != "[[0]]" {
		t.Errorf("refused tables were created: %s", got)
	}

	wantShow := map[string]string{
		"comp":  ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8 COMMENT='it''s text']]",
		"z":     ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci COMPRESSION='zstd']]",
		"plain": ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci]]",
	}
	checkShow := func() {
		t.Helper()
		for tb, want := range wantShow {
			got := env.must("SHOW CREATE TABLE " + tb)
			if !strings.HasSuffix(got, want) {
				t.Errorf("SHOW CREATE TABLE %s = %s\nwant it to end %s", tb, got, want)
			}
		}
	}
	checkShow()

	// About 400 bytes of whole lines a row, 100 rows a statement.
	text := debianText(t, 1<<20)
	var rows []string
	for id := 1; len(text) > 0; id++ {
		n := min(400, len(text))
		if i := bytes.IndexByte(text[n:], '\n'); i >= 0 {
			n += i + 1
		} else {
			n = len(text)
		}
		rows = append(rows, fmt.Sprintf("(%d, X'%s')", id, hex.EncodeToString(text[:n])))
		text = text[n:]
	}
	for _, tb := range []string{"plain", "comp"} {
		for i := 0; i < len(rows); i += 100 {
			env.must("INSERT INTO " + tb + " VALUES " + strings.Join(rows[i:min(i+100, len(rows))], ","))
		}
	}
	p := env.must("SELECT id, body FROM plain ORDER BY id")
	if c := env.must("SELECT id, body FROM comp ORDER BY id"); c != p || len(p) < 1<<20 {
		t.Fatalf("rows differ between the plain and the compressed table (%d and %d bytes printed)", len(p), len(c))
	}

	for _, name := range []string{"plain", "comp"} {
		if err := env.st.CompactTable(context.Background(), env.st.Catalog().Table("tc", name)); err != nil {
			t.Fatal(err)
		}
	}
	sizes := func(tb string) (data, index uint64, format, opts string) {
		t.Helper()
		out := env.must("SELECT DATA_LENGTH, INDEX_LENGTH, ROW_FORMAT, CREATE_OPTIONS FROM information_schema.TABLES WHERE TABLE_SCHEMA='tc' AND TABLE_NAME='" + tb + "'")
		f := strings.Fields(strings.Trim(out, "[]"))
		if len(f) < 3 {
			t.Fatalf("information_schema.TABLES row of %s: %s", tb, out)
		}
		data, _ = strconv.ParseUint(f[0], 10, 64)
		index, _ = strconv.ParseUint(f[1], 10, 64)
		return data, index, f[2], strings.Join(f[3:], " ")
	}
	pd, pi, pf, po := sizes("plain")
	cd, ci, cf, co := sizes("comp")
	t.Logf("plain: data %d index %d; compressed: data %d index %d (%.2fx)", pd, pi, cd, ci, float64(cd)/float64(pd))
	if pd == 0 || pi == 0 || cd == 0 || ci == 0 || float64(cd) > 0.8*float64(pd) {
		t.Errorf("information_schema.TABLES: plain data %d index %d, compressed data %d index %d; want all > 0 and compressed data <= 0.8x plain", pd, pi, cd, ci)
	}
	if pf != "Dynamic" || po != "" || cf != "Compressed" || co != "row_format=COMPRESSED KEY_BLOCK_SIZE=8" {
		t.Errorf("ROW_FORMAT, CREATE_OPTIONS: plain %q %q, compressed %q %q", pf, po, cf, co)
	}

	env.close()
	env = openStatsEnv(t, dir)
	defer env.close()
	env.s.SetCurrentDatabase("tc")
	checkShow()
	if c := env.must("SELECT id, body FROM comp ORDER BY id"); c != p {
		t.Fatal("the compressed table's rows changed across a restart")
	}
}
