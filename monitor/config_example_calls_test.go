package monitor

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// The commented calls: of examples/fleet.yaml is a valid list once its # are taken out, as the
// comment above it says.
func TestTheExampleFleetsCommentedCallsAreValid(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "examples", "fleet.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	uncommented := regexp.MustCompile(`(?m)^    # (calls:|  )`).ReplaceAll(data, []byte("    $1"))
	cfg, err := ParseConfig("fleet.yaml", uncommented)
	if err != nil {
		t.Fatalf("%v\n%s", err, uncommented)
	}
	var tools []string
	for _, s := range cfg.Servers {
		for _, c := range s.Calls {
			tools = append(tools, s.Name+":"+c.Tool)
		}
	}
	if len(tools) != 2 || tools[0] != "reference-everything:echo" || tools[1] != "reference-everything:get-sum" {
		t.Errorf("calls of the example %q, want echo and get-sum of reference-everything", tools)
	}
	if cfg, err := LoadConfig(filepath.Join("..", "examples", "fleet.yaml")); err != nil || len(cfg.Servers[1].Calls) != 0 {
		t.Errorf("as shipped, the example calls nothing: %v", err)
	}
}
