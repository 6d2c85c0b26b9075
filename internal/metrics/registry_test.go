package metrics

import (
	"errors"
	"testing"
)

func TestRegisterRefusesADuplicateFamilyName(t *testing.T) {
	t.Parallel()
	counter := NewCounter(Opts{Name: "a_total", Help: "A."})
	tests := []struct {
		name   string
		first  Collector
		second Collector
		err    error
	}{
		{"distinct names", NewCounter(Opts{Name: "a_total"}), NewCounter(Opts{Name: "b_total"}), nil},
		{"same name, same type", NewCounter(Opts{Name: "a_total"}), NewCounter(Opts{Name: "a_total"}), ErrDuplicate},
		{"same name, another type", NewCounter(Opts{Name: "a"}), NewGaugeVec(Opts{Name: "a"}, []string{"l"}), ErrDuplicate},
		{"same collector twice", counter, counter, ErrDuplicate},
		{"runtime collector twice", NewRuntimeCollector(), NewRuntimeCollector(), ErrDuplicate},
		{"a metric named as one of the runtime's", NewRuntimeCollector(), NewGauge(Opts{Name: "go_goroutines"}), ErrDuplicate},
		{"runtime and process collectors", NewRuntimeCollector(), NewProcessCollector(), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := NewRegistry()
			if err := r.Register(tt.first); err != nil {
				t.Fatalf("first: %v", err)
			}
			if err := r.Register(tt.second); !errors.Is(err, tt.err) {
				t.Errorf("second: %v, want %v", err, tt.err)
			}
		})
	}
}

func TestRegisterOfARefusedCollectorRegistersNone(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	mustRegister(t, r, NewGauge(Opts{Name: "go_threads"}))
	if err := r.Register(NewRuntimeCollector()); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("runtime collector over go_threads: %v", err)
	}
	// Had the refused collector taken go_goroutines, this would fail.
	if err := r.Register(NewGauge(Opts{Name: "go_goroutines"})); err != nil {
		t.Errorf("go_goroutines after the refusal: %v", err)
	}
	if err := r.Register(nil); err == nil {
		t.Error("nil collector registered")
	}
}
