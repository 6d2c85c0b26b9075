package main

import (
	"fmt"
	"os"

	"github.com/mcpwatch/mcpwatch/internal/calls"
)

// applyCalls reads the calls file of --calls (with its fromEnv values from the environment)
// into the probe's options, and adds the values it read from the environment to the
// secrets of the run. Without --calls it does nothing: the probe calls no listed tool.
func (cfg *checkConfig) applyCalls(lookupEnv func(string) (string, bool)) error {
	if cfg.calls == "" {
		return nil
	}
	data, err := os.ReadFile(cfg.calls)
	if err != nil {
		return fmt.Errorf("--calls: %w", err)
	}
	set, err := calls.Parse(cfg.calls, data, lookupEnv)
	if err != nil {
		return fmt.Errorf("--calls: %w", err)
	}
	cfg.options.Calls = set.Calls
	cfg.secrets = append(cfg.secrets, set.Secrets...)
	return nil
}
