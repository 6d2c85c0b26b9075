package alert

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcpwatch/mcpwatch/internal/toolsurface"
)

// Memory parts, each a row of alert_memory written only when it changed: the latency samples
// change every run, the tool surface seldom, and a surface can be large.
const (
	partRegions = "regions"
	partChecks  = "checks"
	partTools   = "tools"
	partLatency = "latency"
)

// memory is what the evaluators carry from one run of a server to the next.
type memory struct {
	regions map[string]*regionMemory
	checks  map[string]string
	tools   driftMemory
	latency map[string]*latencyMemory
}

type driftMemory struct {
	// Tools is the last complete surface seen; nil before the first.
	Tools *toolsurface.Surface `json:"tools"`
}

func decodeMemory(parts map[string][]byte) (*memory, error) {
	m := &memory{regions: map[string]*regionMemory{}, checks: map[string]string{}, latency: map[string]*latencyMemory{}}
	for name, dst := range m.targets() {
		raw, ok := parts[name]
		if !ok {
			continue
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return nil, fmt.Errorf("alert: memory %s: %w", name, err)
		}
	}
	return m, nil
}

func (m *memory) targets() map[string]any {
	return map[string]any{partRegions: &m.regions, partChecks: &m.checks, partTools: &m.tools, partLatency: &m.latency}
}

// changedParts encodes the parts and returns those that differ from before.
func (m *memory) changedParts(before map[string][]byte) (map[string][]byte, error) {
	out := map[string][]byte{}
	for name, v := range m.targets() {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("alert: memory %s: %w", name, err)
		}
		old, had := before[name]
		if (had && jsonEqual(old, raw)) || (!had && isEmptyJSON(raw)) {
			continue
		}
		out[name] = raw
	}
	return out, nil
}

func isEmptyJSON(raw []byte) bool {
	switch string(raw) {
	case "{}", "null", "[]", `{"tools":null}`:
		return true
	}
	return false
}

// jsonEqual compares two encodings; Postgres' jsonb hands back a normalised form (member
// order, spacing), so the bytes read are re-encoded before comparing.
func jsonEqual(stored, fresh []byte) bool {
	if bytes.Equal(stored, fresh) {
		return true
	}
	a, errA := decodeNumbers(stored)
	b, errB := decodeNumbers(fresh)
	if errA != nil || errB != nil {
		return false
	}
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

func decodeNumbers(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}
