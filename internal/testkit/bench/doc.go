// Package bench holds the benchmarks that prove the speed targets of the prober as a whole:
// a full probe against the same HTTP round trips made by a bare net/http loop, and
// `prober check` against the start-up time of the server it probes. Run them with
//
//	go test -run '^$' -bench . -benchtime 200x ./internal/testkit/bench/
//
// The package has no code of its own beyond this comment: everything is in its tests.
package bench
