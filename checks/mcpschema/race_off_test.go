//go:build !race

package mcpschema

// raceDetector: see race_on_test.go.
const raceDetector = false
