package store

//go:generate go test -run TestRealRunFixtureIsARealRun -update-real-run .

import (
	"encoding/json"
	"fmt"
	"os"
)

// ReadRealRun reads a run written as JSON (a RunRecord without its transcript) and its
// transcript from a file of its own: the run the write benchmark stores, recorded from a
// probe of the fixture server (real_run_test.go).
func ReadRealRun(runFile, transcriptFile string) (RunRecord, error) {
	var r RunRecord
	body, err := os.ReadFile(runFile)
	if err != nil {
		return r, fmt.Errorf("store: %w", err)
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return r, fmt.Errorf("store: %s: %w", runFile, err)
	}
	if r.Transcript, err = os.ReadFile(transcriptFile); err != nil {
		return r, fmt.Errorf("store: %w", err)
	}
	return r, nil
}
