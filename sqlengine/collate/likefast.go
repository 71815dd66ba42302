package collate

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// LIKE of an ASCII string against an ASCII pattern, matched over bytes.
// GMS's LIKE decodes the value rune by rune through the character set's
// encoder, weighs each rune with the collation's sorter, keeps a stack
// for backtracking (allocated per row) and takes its matcher from a
// sync.Pool per evaluation: TPC-H's LIKEs (Q16's p_type NOT LIKE
// 'LARGE BRUSHED%' over part, Q13's o_comment NOT LIKE
// '%special%requests%' over orders, Q9's and Q20's p_name) spent most
// of their time there. GMS's rule is per rune: a pattern character
// matches a value character when the sorter weighs them alike, '_' any
// one character, '%' any sequence. For ASCII both sides are one byte a
// rune, so the rule is that of a table folding each ASCII byte to the
// smallest byte its collation weighs alike (case pairs under _ci, none
// under _bin, as the sorter says), and the wildcard match runs over
// bytes. A value with any other byte, a pattern that is not a literal of
// ASCII without an escape, and character sets other than utf8mb4 and
// utf8mb3 are GMS's LIKE.

const LikeRuleID analyzer.RuleId = 1023

// likeFastRule puts fastLike in place of eligible LIKEs.
func LikeRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		if l, ok := e.(*expression.Like); ok {
			if f := newFastLike(ctx, l); f != nil {
				return f, transform.NewTree, nil
			}
		}
		return e, transform.SameTree, nil
	})
}

// fastLike is a LIKE with an ASCII pattern literal.
type fastLike struct {
	*expression.Like // everything but Eval and WithChildren
	pattern          []byte
	fold             *[128]byte
	// gms is GMS's matcher of the pattern, for values not all ASCII.
	gms expression.LikeMatcher
}

// newFastLike returns l as a fastLike, or nil.
func newFastLike(ctx *sql.Context, l *expression.Like) *fastLike {
	if l.Escape != nil {
		return nil
	}
	lit, ok := l.RightChild.(*expression.Literal)
	if !ok {
		return nil
	}
	p, ok := lit.Value().(string)
	if !ok {
		return nil
	}
	if !isASCII(p) || strings.ContainsRune(p, '\\') {
		return nil
	}
	coll, _ := l.CollationCoercibility(ctx)
	switch coll.CharacterSet() {
	case sql.CharacterSet_utf8mb4, sql.CharacterSet_utf8mb3:
	default:
		return nil
	}
	fold := asciiFold(coll)
	if fold == nil {
		return nil
	}
	m, err := expression.ConstructLikeMatcher(coll, p, '\\')
	if err != nil {
		return nil
	}
	return &fastLike{Like: l, pattern: []byte(p), fold: fold, gms: m}
}

func (f *fastLike) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	e, err := f.Like.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	l := e.(*expression.Like)
	if lit, ok := l.RightChild.(*expression.Literal); ok {
		if p, ok := lit.Value().(string); ok && p == string(f.pattern) {
			return &fastLike{Like: l, pattern: f.pattern, fold: f.fold, gms: f.gms}, nil
		}
	}
	return l, nil
}

// Eval is GMS's Like.Eval with the byte match for ASCII: the value read
// once (a second read would repeat its warnings), a non-string as text.
func (f *fastLike) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := f.LeftChild.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	if v, err = sql.UnwrapAny(ctx, v); err != nil {
		return nil, err
	}
	s, ok := v.(string)
	if !ok {
		t, _, err := types.LongText.Convert(ctx, v)
		if err != nil {
			return nil, err
		}
		if s, ok = t.(string); !ok {
			return nil, nil
		}
	}
	if !isASCII(s) {
		return f.gms.Match(s), nil
	}
	return matchLike(s, f.pattern, f.fold), nil
}

// matchLike matches the ASCII s against the ASCII pattern p ('%' any
// sequence, '_' any one byte, other bytes alike under fold): the greedy
// match that goes back to the last '%' on a mismatch.
func matchLike(s string, p []byte, fold *[128]byte) bool {
	i, j := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case j < len(p) && p[j] == '%':
			star, mark = j, i
			j++
		case j < len(p) && (p[j] == '_' || fold[p[j]] == fold[s[i]]):
			i++
			j++
		case star >= 0:
			j = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for j < len(p) && p[j] == '%' {
		j++
	}
	return j == len(p)
}
