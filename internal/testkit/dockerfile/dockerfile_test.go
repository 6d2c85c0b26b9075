package dockerfile

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseSplitsStagesAndJoinsContinuations(t *testing.T) {
	src := `# a comment
ARG GO=1.26
FROM golang:1.26 AS build
RUN go build \
    -o /out/x \
    ./cmd/x

# the final stage
FROM scratch
copy --from=build /out/x /x
ENTRYPOINT ["/x"]
`
	got, err := Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Stage{
		{From: "golang:1.26", Name: "build", Line: 3, Instructions: []Instruction{
			{Line: 4, Keyword: "RUN", Args: "go build  -o /out/x  ./cmd/x"},
		}},
		{From: "scratch", Line: 9, Instructions: []Instruction{
			{Line: 10, Keyword: "COPY", Args: "--from=build /out/x /x"},
			{Line: 11, Keyword: "ENTRYPOINT", Args: `["/x"]`},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse:\n got %+v\nwant %+v", got, want)
	}
}

func TestParseRefusesWhatItCannotRead(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"instruction before FROM", "RUN true\nFROM scratch\n", "line 1: RUN before the first FROM"},
		{"no FROM at all", "# nothing\nARG X=1\n", "no FROM"},
		{"FROM with a stray word", "FROM scratch extra\n", "line 1: FROM scratch extra"},
		{"ends inside a continuation", "FROM scratch\nCMD [\"a\", \\\n", "line 2: the file ends inside"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.src))
			if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want ErrSyntax saying %q", err, tt.want)
			}
		})
	}
}

func TestExecTellsTheExecFormFromTheShellForm(t *testing.T) {
	tests := []struct {
		args string
		want []string
		ok   bool
	}{
		{`["/prober", "run"]`, []string{"/prober", "run"}, true},
		{`/prober run`, nil, false},
		{`[]`, nil, false},
		{`["/prober", 1]`, nil, false},
	}
	for _, tt := range tests {
		got, ok := Instruction{Keyword: "CMD", Args: tt.args}.Exec()
		if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Exec(%s) = %q, %v; want %q, %v", tt.args, got, ok, tt.want, tt.ok)
		}
	}
}

func TestFindKeepsTheOrderOfOneKeyword(t *testing.T) {
	st := Stage{Instructions: []Instruction{
		{Line: 2, Keyword: "COPY", Args: "a /a"},
		{Line: 3, Keyword: "USER", Args: "1:1"},
		{Line: 4, Keyword: "COPY", Args: "b /b"},
	}}
	got := st.Find("COPY")
	if len(got) != 2 || got[0].Line != 2 || got[1].Line != 4 {
		t.Errorf("Find(COPY) = %+v, want lines 2 and 4", got)
	}
	if got := st.Find("RUN"); got != nil {
		t.Errorf("Find(RUN) = %+v, want none", got)
	}
}
