//go:build race

package mcpschema

// raceDetector: the race detector slows the library's validations tenfold; the agreement
// tests, which exercise no concurrency, then judge a sample of their cases.
const raceDetector = true
