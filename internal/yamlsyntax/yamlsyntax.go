// Package yamlsyntax locates the syntax errors of go.yaml.in/yaml/v3.
//
// The library's message names the line where the construct it could not finish began (and,
// for some errors, line 1 or no line at all), never a column: a key indented one space too
// little on line 40 is reported at "line 1". The parser's own position of the problem is not
// exported, so Locate finds it from outside: the shortest prefix of the document that fails
// with the same problem ends where the parser stopped.
package yamlsyntax

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// maxSearchBytes bounds the documents searched: each step parses a prefix again, some 30
// parses in all (a second for a 1 MiB file of 14,000 servers), and a configuration is
// kilobytes. A larger document keeps the library's line.
const maxSearchBytes = 1 << 20

// Error is a syntax error with the position where the parser found it.
type Error struct {
	// Line and Column count from 1 (Column in characters); 0 when unknown.
	Line, Column int
	// Problem is the library's description without its "yaml: line N:" prefix.
	Problem string
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Problem)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Problem)
	}
	return e.Problem
}

var prefix = regexp.MustCompile(`^yaml: (?:line (\d+): )?`)

// problem is err's message without the library's prefix.
func problem(err error) string {
	return prefix.ReplaceAllString(err.Error(), "")
}

// fails reports whether parsing doc fails with the problem p.
func fails(doc []byte, p string) bool {
	var n yaml.Node
	err := yaml.Unmarshal(doc, &n)
	return err != nil && problem(err) == p
}

// Locate gives the position of err, the error yaml.Unmarshal returned for data: the line and
// column of the character at which the parser could not go on. For a construct left open (a
// quote, a bracket) that is where it was opened. When no prefix fails as the whole document
// does, the line is the library's own.
func Locate(data []byte, err error) *Error {
	e := &Error{Problem: problem(err)}
	if m := prefix.FindStringSubmatch(err.Error()); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
	}
	if len(data) > maxSearchBytes || !fails(data, e.Problem) {
		return e
	}
	// ends[i] is the length of the first i+1 lines (with their line feed).
	var ends []int
	for i := 0; i < len(data); {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			ends = append(ends, len(data))
			break
		}
		i += j + 1
		ends = append(ends, i)
	}
	// A longer prefix holds the problem too: the parser stops at the first one it meets.
	line := sort.Search(len(ends), func(i int) bool { return fails(data[:ends[i]], e.Problem) })
	if line == len(ends) {
		return e
	}
	start := 0
	if line > 0 {
		start = ends[line-1]
	}
	text := data[start:ends[line]]
	// The shortest part of the line after which the document fails so, cut between
	// characters.
	var cuts []int
	for i := range len(text) {
		if i > 0 && utf8.RuneStart(text[i]) {
			cuts = append(cuts, i)
		}
	}
	cuts = append(cuts, len(text))
	c := sort.Search(len(cuts), func(i int) bool { return fails(data[:start+cuts[i]], e.Problem) })
	e.Line = line + 1
	if c < len(cuts) {
		col := utf8.RuneCount(bytes.TrimRight(text[:cuts[c]], "\r\n"))
		if col == 0 {
			col = 1
		}
		e.Column = col
	}
	return e
}
