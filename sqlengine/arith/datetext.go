package arith

import (
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// DateParts is a date and time as written, before validation.
type DateParts struct {
	Y, Mo, D, H, Mi, S, Us int
	HasTime                bool
}

// ParseDateText reads MySQL's date and datetime forms: YYYY-MM-DD or
// YY-MM-DD with any punctuation between the parts, an optional time
// after a space or T (HH:MM:SS[.frac]), or the digits-only forms
// YYYYMMDD[HHMMSS] and YYMMDD[HHMMSS].
func ParseDateText(s string) (DateParts, bool) {
	s = strings.TrimSpace(s)
	var p DateParts
	if s == "" {
		return p, false
	}
	allDigits := true
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			allDigits = s[i] == '.' && i >= 12
			if !allDigits {
				break
			}
		}
	}
	if allDigits {
		return ParseDateDigits(s)
	}
	var nums []int
	i := 0
	for i < len(s) {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i {
			return p, false
		}
		n, _ := strconv.Atoi(s[i:j])
		if len(nums) == 0 && j-i <= 2 {
			n = twoDigitYear(n)
		}
		nums = append(nums, n)
		if len(nums) == 6 && j < len(s) && s[j] == '.' {
			k := j + 1
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			frac := (s[j+1:k] + "000000")[:6]
			p.Us, _ = strconv.Atoi(frac)
			j = k
		}
		if j >= len(s) {
			break
		}
		i = j + 1
		for i < len(s) && (s[i] == ' ' || s[i] == 'T') && len(nums) == 3 {
			i++
		}
	}
	if len(nums) != 3 && len(nums) != 6 && len(nums) != 5 {
		return p, false
	}
	p.Y, p.Mo, p.D = nums[0], nums[1], nums[2]
	if len(nums) >= 5 {
		p.H, p.Mi, p.HasTime = nums[3], nums[4], true
		if len(nums) == 6 {
			p.S = nums[5]
		}
	}
	return p, true
}

func twoDigitYear(n int) int {
	if n < 70 {
		return n + 2000
	}
	if n < 100 {
		return n + 1900
	}
	return n
}

func ParseDateDigits(s string) (DateParts, bool) {
	var p DateParts
	frac := ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		s, frac = s[:i], s[i+1:]
	}
	atoi := func(a string) int { n, _ := strconv.Atoi(a); return n }
	switch len(s) {
	case 8, 14:
		p.Y, p.Mo, p.D = atoi(s[0:4]), atoi(s[4:6]), atoi(s[6:8])
		s = s[8:]
	case 6, 12:
		p.Y, p.Mo, p.D = twoDigitYear(atoi(s[0:2])), atoi(s[2:4]), atoi(s[4:6])
		s = s[6:]
	default:
		return p, false
	}
	if len(s) == 6 {
		p.H, p.Mi, p.S, p.HasTime = atoi(s[0:2]), atoi(s[2:4]), atoi(s[4:6]), true
		if frac != "" {
			p.Us = atoi((frac + "000000")[:6])
		}
	}
	return p, true
}

func DaysIn(y, mo int) int {
	return time.Date(y, time.Month(mo)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// castDateText is CAST(text AS DATE) and CAST(text AS DATETIME[(n)]):
// the text read as a column stores it (ParseDateText: '2002-011-012' and
// '2002.11.12 10.11.12' are dates in MySQL, GMS read NULL), GMS's
// conversion for what that parser does not read or what names no date.
type castDateText struct {
	child sql.Expression
	gms   sql.Expression
}

var _ sql.Expression = (*castDateText)(nil)

func (c *castDateText) Resolved() bool             { return c.child.Resolved() }
func (c *castDateText) String() string             { return c.gms.String() }
func (c *castDateText) Type() sql.Type             { return c.gms.Type() }
func (c *castDateText) IsNullable() bool           { return true }
func (c *castDateText) Children() []sql.Expression { return []sql.Expression{c.child} }

func (c *castDateText) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(c, len(children), 1)
	}
	g, err := c.gms.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &castDateText{child: children[0], gms: g}, nil
}

func (c *castDateText) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := c.child.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	s, ok := v.(string)
	if !ok {
		return c.gms.Eval(ctx, row)
	}
	p, ok := ParseDateText(s)
	if !ok || p.Mo < 1 || p.Mo > 12 || p.D < 1 || p.D > DaysIn(p.Y, p.Mo) || p.H > 23 || p.Mi > 59 || p.S > 59 {
		return c.gms.Eval(ctx, row)
	}
	t := c.Type()
	if types.IsDateType(t) {
		return time.Date(p.Y, time.Month(p.Mo), p.D, 0, 0, 0, 0, time.UTC), nil
	}
	out, _, err := t.Convert(ctx, time.Date(p.Y, time.Month(p.Mo), p.D, p.H, p.Mi, p.S, p.Us*1000, time.UTC))
	if err != nil {
		return c.gms.Eval(ctx, row)
	}
	return out, nil
}
