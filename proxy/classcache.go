package proxy

import (
	"encoding/binary"
	"strings"
	"sync"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// classCache remembers classifications by statement shape: the token
// stream vitess's tokenizer reads, with the values of literals (strings,
// numbers) left out. Two statements of one shape parse to the same tree
// but for their literals, so a kind that no literal decides (a SELECT's,
// an INSERT's) holds for both; `SELECT c FROM t WHERE id=7` and `...
// id=8` share an entry, and the parser runs once per shape instead of
// once per statement. Kinds a literal can decide (SET autocommit = 0 or
// 1, the proxy's own variable) and those that carry names (USE) are
// never cached. Safe for concurrent use.
type classCache struct {
	mu sync.Mutex
	m  map[string]Statement
}

// maxShapes bounds the cache; past it the cache starts over.
const maxShapes = 4096

// maxShapeTokens bounds the tokens read for a key: longer statements are
// parsed every time.
const maxShapeTokens = 512

// classify is Classify through the cache.
func (c *classCache) classify(query string) Statement {
	key, ok := shapeKey(query)
	if !ok {
		return Classify(query)
	}
	c.mu.Lock()
	st, hit := c.m[key]
	c.mu.Unlock()
	if hit {
		return st
	}
	st = Classify(query)
	if cacheable(st) {
		c.mu.Lock()
		if c.m == nil || len(c.m) >= maxShapes {
			c.m = map[string]Statement{}
		}
		c.m[key] = st
		c.mu.Unlock()
	}
	return st
}

func cacheable(st Statement) bool {
	switch st.Kind {
	case KindRead, KindWrite, KindBegin, KindEnd:
		return !st.Multi && !strings.HasPrefix(st.Why, "set")
	}
	return false
}

// shapeKey is query's token stream without literal values; ok is false
// for a statement the tokenizer refuses or one too long to key.
func shapeKey(query string) (string, bool) {
	tkn := ast.NewStringTokenizer(query)
	buf := make([]byte, 0, 2*len(query))
	for range maxShapeTokens {
		typ, val := tkn.Scan()
		switch typ {
		case 0:
			return string(buf), true
		case ast.LEX_ERROR:
			return "", false
		case ast.STRING, ast.INTEGRAL, ast.FLOAT, ast.HEXNUM, ast.HEX, ast.BIT_LITERAL:
			buf = binary.AppendUvarint(buf, uint64(typ))
		default:
			buf = binary.AppendUvarint(buf, uint64(typ))
			buf = binary.AppendUvarint(buf, uint64(len(val)))
			buf = append(buf, val...)
		}
	}
	return "", false
}
