package apiserver

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// The conformance of a server counts its untested checks and its advice apart, in the JSON
// the API serves: an untested check is neither a pass nor a skip.
func TestStatusViewCountsUntestedAndAdvice(t *testing.T) {
	s := &API{}
	st := store.ServerStatus{Server: store.Server{Name: "half"}, State: store.StateUnknown,
		Conformance: &store.Conformance{RunID: store.NewRunID(time.Now()), At: time.Now(),
			Pass: 3, Warn: 1, Advice: 1, Untested: 1, Skip: 2, Warning: []string{"tools.description"}}}
	raw, err := json.Marshal(s.toStatusView(st))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Conformance map[string]any `json:"conformance"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	c := got.Conformance
	if c["untested"] != 1.0 || c["advice"] != 1.0 || c["skip"] != 2.0 || c["pass"] != 3.0 {
		t.Errorf("conformance %v: want untested 1, advice 1 apart from skip 2 and pass 3", c)
	}
	// (3 passes + 1 advice) of 5 applicable checks.
	if c["score"] != 80.0 {
		t.Errorf("score %v, want 80", c["score"])
	}
}
