package alert

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// sim drives the evaluator run by run against a snapshot kept in memory, as the store would
// keep it, so that the state machine is tested without a database.
type sim struct {
	t     *testing.T
	ev    *evaluator
	snap  store.AlertSnapshot
	next  int
	start time.Time
}

var t0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC) // a Monday

func newSim(t *testing.T, cfg Config) *sim {
	t.Helper()
	if cfg.Channels == nil {
		cfg.Channels = []ChannelConfig{{Name: "ops", Type: ChannelSlack, WebhookURLEnv: "HOOK"}}
	}
	if err := cfg.ValidateAndSetDefaults(); err != nil {
		t.Fatalf("config: %v", err)
	}
	ev, err := newEvaluator(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := &sim{t: t, ev: ev, snap: store.AlertSnapshot{ServerID: 7, Memory: map[string][]byte{}}, start: t0}
	ev.newIncident = func() string {
		s.next++
		return fmt.Sprintf("00000000-0000-4000-8000-%012d", s.next)
	}
	return s
}

// obs is a run of server 7 ("weather") at t0+at.
func obs(at time.Duration, region, outcome string) Observation {
	return Observation{ServerID: 7, Server: "weather", Region: region, At: t0.Add(at), Outcome: outcome}
}

// observe judges one run and applies the changes as the store would.
func (s *sim) observe(o Observation) []store.AlertEvent {
	s.t.Helper()
	if err := o.Validate(); err != nil {
		s.t.Fatal(err)
	}
	o.At = o.At.Truncate(time.Microsecond).UTC()
	ch, err := s.ev.decide(&o, s.snap)
	if err != nil {
		s.t.Fatalf("decide: %v", err)
	}
	for part, data := range ch.Memory {
		s.snap.Memory[part] = data
	}
	for _, st := range ch.States {
		found := false
		for i := range s.snap.States {
			if s.snap.States[i].Kind == st.Kind && s.snap.States[i].Key == st.Key {
				s.snap.States[i], found = st, true
			}
		}
		if !found {
			s.snap.States = append(s.snap.States, st)
		}
	}
	return ch.Events
}

// state returns the stored state of an alert.
func (s *sim) state(kind Kind, key string) (store.AlertState, bool) {
	for _, st := range s.snap.States {
		if st.Kind == string(kind) && st.Key == key {
			return st, true
		}
	}
	return store.AlertState{}, false
}

// eventText writes an event as the tables expect it: "fired down", "fired conformance
// lifecycle.ping (muted: ...)".
func eventText(e store.AlertEvent) string {
	s := e.Event + " " + e.Kind
	if e.Key != "" {
		s += " " + e.Key
	}
	if e.Muted != "" {
		s += " (muted: " + e.Muted + ")"
	}
	return s
}

func eventTexts(es []store.AlertEvent) []string {
	out := make([]string, 0, len(es))
	for _, e := range es {
		out = append(out, eventText(e))
	}
	return out
}

// step is one run of a scenario and the events it must cause.
type simStep struct {
	o    Observation
	want []string
}

func runScenario(t *testing.T, cfg Config, steps []simStep) *sim {
	t.Helper()
	s := newSim(t, cfg)
	for i, st := range steps {
		got := eventTexts(s.observe(st.o))
		if strings.Join(got, "; ") != strings.Join(st.want, "; ") {
			t.Fatalf("run %d (%s %s at +%v): events %q, want %q", i+1, st.o.Region, st.o.Outcome, st.o.At.Sub(t0), got, st.want)
		}
	}
	return s
}

func none() []string { return nil }

func ev(texts ...string) []string { return texts }

func decodeMessage(t *testing.T, payload []byte) Message {
	t.Helper()
	var msg Message
	if err := json.Unmarshal(payload, &msg); err != nil {
		t.Fatalf("payload %s: %v", payload, err)
	}
	return msg
}
