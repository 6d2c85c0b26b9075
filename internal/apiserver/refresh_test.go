package apiserver

import (
	"context"
	"testing"
	"time"
)

// The refresher sums the windows at once when it starts, and stops with its context.
func TestRefreshLoopSumsTheWindowsAndStops(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx, cancel := context.WithCancel(t.Context())
	stopped := make(chan struct{})
	go func() {
		w.api.RefreshLoop(ctx)
		close(stopped)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var asOf *time.Time
		if err := w.st.Pool().QueryRow(t.Context(), `SELECT as_of FROM status_windows_state`).Scan(&asOf); err != nil {
			t.Fatal(err)
		}
		if asOf != nil && asOf.Equal(time.Now().UTC().Truncate(time.Hour)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("status sums not refreshed (as of %v)", asOf)
		}
		time.Sleep(50 * time.Millisecond) // polling the database: there is no signal to wait on
	}
	cancel()
	select {
	case <-stopped:
	case <-time.After(30 * time.Second):
		t.Fatal("RefreshLoop did not stop")
	}
}
