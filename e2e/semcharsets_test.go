package e2e

// semCharsetCorpus is the corpus's section on MySQL's 8-bit character
// sets (charsets, 2026-12-01): columns of latin2, koi8r, cp1251, greek,
// hebrew, latin5, cp1250 and cp866, their bytes (HEX), lengths, case maps,
// orders and equalities under each set's collations, through an index
// too (sqlengine/charset/eightbit.go; GMS refused every such set, 1115).
func semCharsetCorpus(add func(mode, q string), quiet func(q string)) {
	quiet("CREATE TABLE t_cs8 (id INT PRIMARY KEY, l2 VARCHAR(8) CHARACTER SET latin2, k VARCHAR(8) CHARACTER SET koi8r, w VARCHAR(8) CHARACTER SET cp1251, g VARCHAR(8) CHARACTER SET greek, KEY (l2), KEY (k))")
	quiet("INSERT INTO t_cs8 VALUES (1, 'ą', 'Привет', 'Ёж', 'αβγ'), (2, 'Ą', 'привет', 'ёж', 'ΑΒΓ'), (3, 'a', 'Ёлка', 'Ежи', 'ά'), (4, 'Z', 'Елка', 'яма', 'Ω'), (5, 'ł', 'ЯМА', 'Яма', 'ω'), (6, 'L', 'абв', 'abc', 'a')")
	for _, q := range []string{
		"SELECT id, HEX(l2), HEX(k), HEX(w), HEX(g), LENGTH(k), CHAR_LENGTH(k), OCTET_LENGTH(g) FROM t_cs8 ORDER BY id",
		"SELECT id, UPPER(l2), LOWER(l2), UPPER(k), LOWER(k), UPPER(w), LOWER(g), HEX(UPPER(g)) FROM t_cs8 ORDER BY id",
		"SELECT GROUP_CONCAT(id ORDER BY id) FROM t_cs8 GROUP BY l2 ORDER BY MIN(l2)",
		"SELECT id, l2 FROM t_cs8 ORDER BY l2, id",
		"SELECT id, k FROM t_cs8 ORDER BY k, id",
		"SELECT id, w FROM t_cs8 ORDER BY w, id",
		"SELECT id, g FROM t_cs8 ORDER BY g, id",
		"SELECT id FROM t_cs8 WHERE l2 = 'Ą' ORDER BY id",
		"SELECT id FROM t_cs8 WHERE k = 'ПРИВЕТ' ORDER BY id",
		"SELECT id FROM t_cs8 WHERE k > 'Е' ORDER BY k, id",
		"SELECT id FROM t_cs8 WHERE l2 BETWEEN 'a' AND 'l' ORDER BY l2, id",
		"SELECT id, k COLLATE koi8r_bin FROM t_cs8 ORDER BY k COLLATE koi8r_bin, id",
		"SELECT id, l2 FROM t_cs8 ORDER BY l2 COLLATE latin2_bin, id",
		"SELECT COUNT(DISTINCT l2), COUNT(DISTINCT k), COUNT(DISTINCT w) FROM t_cs8",
	} {
		add("strict", q)
	}
	// A character the column's set lacks: 1366 in strict mode, '?' and
	// a warning otherwise.
	add("strict", "INSERT INTO t_cs8 (id, k) VALUES (10, 'Ā')")
	add("nonstrict", "INSERT INTO t_cs8 (id, l2, k) VALUES (11, 'Ā€', 'zЯ€')")
	add("nonstrict", "SELECT id, HEX(l2), HEX(k) FROM t_cs8 WHERE id = 11")
	// hebrew, latin5 (Turkish dotted and dotless i) and cp1250, cp866.
	quiet("CREATE TABLE t_cs8b (id INT PRIMARY KEY, h VARCHAR(8) CHARACTER SET hebrew, t VARCHAR(8) CHARACTER SET latin5, c VARCHAR(8) CHARACTER SET cp1250 COLLATE cp1250_polish_ci, d VARCHAR(8) CHARACTER SET cp866)")
	quiet("INSERT INTO t_cs8b VALUES (1, 'שלום', 'ıİiI', 'Łódź', 'Дом'), (2, 'אבג', 'ğĞşŞ', 'lodz', 'дом'), (3, 'abc', 'Istanbul', 'Ąb', 'ДОМ'), (4, 'ת', 'iz', 'ab', 'ё')")
	for _, q := range []string{
		"SELECT id, HEX(h), HEX(t), HEX(c), HEX(d), UPPER(t), LOWER(t), UPPER(c), LOWER(d) FROM t_cs8b ORDER BY id",
		"SELECT id, h FROM t_cs8b ORDER BY h, id",
		"SELECT id, t FROM t_cs8b ORDER BY t, id",
		"SELECT id, c FROM t_cs8b ORDER BY c, id",
		"SELECT id, d FROM t_cs8b ORDER BY d, id",
		"SELECT id FROM t_cs8b WHERE d = 'дом' ORDER BY id",
	} {
		add("strict", q)
	}
	// A binary string (0x.., X'..', a VARBINARY) into a single-byte
	// set's column is that set's bytes (storeval; GMS kept them as UTF-8
	// text, 1366 for every byte >= 0x80); into utf8mb4 its bytes must be
	// UTF-8.
	quiet("CREATE TABLE t_cs8c (id INT PRIMARY KEY, a CHAR(2) CHARACTER SET latin1, l VARCHAR(4) CHARACTER SET latin2, k VARCHAR(4) CHARACTER SET koi8r, u VARCHAR(4) CHARACTER SET utf8mb4, b VARBINARY(4))")
	for _, q := range []string{
		"INSERT INTO t_cs8c VALUES (1, 0xE9E0, 0xB1A3, X'F0D2', 0xC3A9, 0xB1)",
		"INSERT INTO t_cs8c (id, u) VALUES (2, 0xE9)",
		"INSERT INTO t_cs8c (id, l, k) SELECT 3, b, b FROM t_cs8c WHERE id = 1",
		"UPDATE t_cs8c SET a = X'FF', l = 0x80 WHERE id = 3",
		"SELECT id, a, HEX(a), l, HEX(l), k, HEX(k), u FROM t_cs8c ORDER BY id",
	} {
		add("strict", q)
	}
	// CONVERT ... USING and introduced hex literals (charset/convertusing.go;
	// GMS returned the target set's bytes as text: HEX failed, 1105, or
	// panicked, and HEX(_latin1 0xE9) was C3A9).
	for _, q := range []string{
		"SELECT HEX(_latin1 0xE9), HEX(_latin2 0xB1), _latin2 0xB1, HEX(CONVERT(_utf8mb4 'é' USING latin1)), HEX(CONVERT(_utf8mb4 'é' USING latin2))",
		"SELECT HEX(CONVERT(_utf8mb4 'Привет' USING koi8r)), HEX(CONVERT(_koi8r 0xF0F2 USING utf8mb4)), CONVERT(_koi8r 0xF0F2 USING utf8mb4), CHARSET(CONVERT('x' USING latin2)), COLLATION(CONVERT('x' USING koi8r))",
		"SELECT HEX(CONVERT(_latin2 0xB1 USING binary)), HEX(CONVERT(0xB1 USING latin2)), CONVERT(0xB1 USING latin2), CONVERT(123 USING latin1), CONVERT(1.5 USING utf8mb4), LENGTH(CONVERT(123 USING latin1))",
		"SELECT CONVERT(X'C3A9' USING utf8mb4), HEX(CONVERT('€' USING cp1251)), HEX(CONVERT(CONVERT('Ж' USING cp1251) USING koi8r)), LENGTH(CONVERT('Жж' USING cp1251)), CHAR_LENGTH(_latin2 0xB1B1)",
		"SELECT _latin2 0xB1 = _latin2 0xA1, UPPER(_latin2 0xB1), LOWER(CONVERT('ĄŁ' USING latin2))",
		"SELECT id, HEX(CONVERT(k USING cp1251)), HEX(CONVERT(l2 USING binary)) FROM t_cs8 WHERE id <= 2 ORDER BY id",
	} {
		add("strict", q)
	}
	// Character set clauses that contradict each other (charsetclauses.go,
	// sqlerr: GMS took the last set, and a collation of another set was
	// 1105).
	for _, q := range []string{
		"CREATE TABLE t_cs8x (a CHAR) CHARACTER SET latin1 CHARACTER SET latin2",
		"CREATE TABLE t_cs8x (a CHAR) CHARACTER SET latin1 COLLATE latin2_bin",
		"CREATE TABLE t_cs8x (a CHAR CHARACTER SET latin1 COLLATE latin2_bin)",
		"CREATE DATABASE d_cs8x DEFAULT CHARACTER SET latin1 CHARACTER SET latin2",
		"CREATE DATABASE d_cs8x DEFAULT CHARACTER SET latin1 COLLATE latin2_bin",
		"CREATE TABLE t_cs8y (a CHAR) CHARACTER SET utf8 CHARACTER SET utf8mb3 COLLATE utf8mb3_bin",
		"SELECT TABLE_COLLATION FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN ('t_cs8x', 't_cs8y')",
	} {
		add("strict", q)
	}
}
