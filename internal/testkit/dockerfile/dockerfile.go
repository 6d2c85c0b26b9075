// Package dockerfile reads the instructions of this project's Dockerfiles (the prober's at the
// module root, the monitor's in deploy/) into stages, for the tests that hold those files to
// what the docs promise: which base, which user, no shell in the final stage. It reads the
// subset of the syntax those files use: comments, `\` continuations, FROM ... AS name, and
// instructions whose arguments stay as written (heredocs and parser directives are not read).
package dockerfile

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// ErrSyntax: the file is not a Dockerfile this package can read.
var ErrSyntax = errors.New("dockerfile syntax")

// Instruction is one instruction of a Dockerfile, continuation lines joined.
type Instruction struct {
	Line    int    // of its first line
	Keyword string // upper case: FROM, RUN, USER, …
	Args    string // as written, continuations joined by a space
}

// Exec is the argument list of an exec-form instruction (ENTRYPOINT ["/prober"]), and false for
// the shell form, which needs a shell to run.
func (in Instruction) Exec() ([]string, bool) {
	var argv []string
	if err := json.Unmarshal([]byte(in.Args), &argv); err != nil || len(argv) == 0 {
		return nil, false
	}
	return argv, true
}

// Stage is the instructions from one FROM to the next.
type Stage struct {
	From, Name   string // FROM From AS Name; Name is empty for an unnamed stage
	Line         int    // of the FROM
	Instructions []Instruction
}

// Find returns the stage's instructions of one keyword, in order.
func (s Stage) Find(keyword string) []Instruction {
	var out []Instruction
	for _, in := range s.Instructions {
		if in.Keyword == keyword {
			out = append(out, in)
		}
	}
	return out
}

// Parse reads a Dockerfile's stages. Only ARG may come before the first FROM.
func Parse(r io.Reader) ([]Stage, error) {
	var (
		stages  []Stage
		pending strings.Builder
		start   int
	)
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") || (line == "" && pending.Len() == 0) {
			continue
		}
		if pending.Len() == 0 {
			start = n
		}
		if cont, ok := strings.CutSuffix(line, `\`); ok {
			pending.WriteString(cont + " ")
			continue
		}
		pending.WriteString(line)
		keyword, args, _ := strings.Cut(pending.String(), " ")
		pending.Reset()
		in := Instruction{Line: start, Keyword: strings.ToUpper(keyword), Args: strings.TrimSpace(args)}
		if in.Keyword == "FROM" {
			fields := strings.Fields(in.Args)
			if len(fields) != 1 && (len(fields) != 3 || !strings.EqualFold(fields[1], "AS")) {
				return nil, fmt.Errorf("line %d: FROM %s: want FROM IMAGE [AS NAME]: %w", in.Line, in.Args, ErrSyntax)
			}
			st := Stage{From: fields[0], Line: in.Line}
			if len(fields) == 3 {
				st.Name = fields[2]
			}
			stages = append(stages, st)
			continue
		}
		if len(stages) == 0 {
			if in.Keyword != "ARG" {
				return nil, fmt.Errorf("line %d: %s before the first FROM: %w", in.Line, in.Keyword, ErrSyntax)
			}
			continue
		}
		stages[len(stages)-1].Instructions = append(stages[len(stages)-1].Instructions, in)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the Dockerfile: %w", err)
	}
	if pending.Len() > 0 {
		return nil, fmt.Errorf("line %d: the file ends inside a continued instruction: %w", start, ErrSyntax)
	}
	if len(stages) == 0 {
		return nil, fmt.Errorf("no FROM: %w", ErrSyntax)
	}
	return stages, nil
}

// Load is Parse of a file, failing the test when it cannot be read.
func Load(t testing.TB, file string) []Stage {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stages, err := Parse(f)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return stages
}
