// Package config reads my.cnf-style option files: [section] headers,
// "name = value" or bare "name" lines, '#' and ';' comments. Names are
// normalised to MySQL variable spelling (lower case, '-' -> '_').
package config

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// File maps section name -> option name -> value ("ON" for bare options).
type File map[string]map[string]string

// Parse reads an option file. Errors name the line.
func Parse(r io.Reader, name string) (File, error) {
	f := File{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	section := ""
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return nil, fmt.Errorf("%s:%d: unterminated section header %q", name, n, line)
			}
			section = strings.ToLower(strings.TrimSpace(line[1:end]))
			if f[section] == nil {
				f[section] = map[string]string{}
			}
			continue
		}
		if line[0] == '!' {
			return nil, fmt.Errorf("%s:%d: %s directives are not supported", name, n, strings.Fields(line)[0])
		}
		if section == "" {
			return nil, fmt.Errorf("%s:%d: option %q outside any [section]", name, n, line)
		}
		key, val, ok := strings.Cut(line, "=")
		key = Normalize(key)
		if key == "" {
			return nil, fmt.Errorf("%s:%d: empty option name", name, n)
		}
		if !ok {
			val = "ON"
		} else {
			val = strings.TrimSpace(val)
			if i := strings.Index(val, " #"); i >= 0 {
				val = strings.TrimSpace(val[:i])
			}
			val = strings.Trim(val, `"'`)
		}
		f[section][key] = val
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return f, nil
}

// Load reads the option file at path.
func Load(path string) (File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return Parse(fh, path)
}

// Normalize turns an option name into MySQL variable spelling.
func Normalize(k string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(k)), "-", "_")
}

// Merged returns the options of the named sections, later sections
// overriding earlier ones.
func (f File) Merged(sections ...string) map[string]string {
	out := map[string]string{}
	for _, s := range sections {
		for k, v := range f[s] {
			out[k] = v
		}
	}
	return out
}
