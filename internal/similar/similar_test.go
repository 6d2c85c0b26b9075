package similar

import "testing"

func TestDistanceCountsEditsAndSwapsAsOne(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"timeout", "timeout", 0},
		{"timout", "timeout", 1},   // a letter left out
		{"tiemout", "timeout", 1},  // two letters swapped: one edit, not two
		{"timeouts", "timeout", 1}, // one too many
		{"timeoot", "timeout", 1},  // one wrong
		{"", "abc", 3},
		{"abc", "", 3},
		{"kitten", "sitting", 3},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Distance(tc.b, tc.a); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (the distance is symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}
