package alert

import (
	"strings"
	"testing"
)

func TestShortDiff(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 60)
	tests := []struct {
		before, after, want string
	}{
		{"Fetch a page", "Fetch a web page", "Fetch a {+web +}page"},
		{"Fetch a page", "Fetch a", "Fetch a[- page-]"},
		{"Search", "Lookup", "[-Search-]{+Lookup+}"},
		{long + " x " + long, long + " y " + long,
			"…" + strings.Repeat("a", 39) + " [-x-]{+y+} " + strings.Repeat("a", 39) + "…"},
		{"é", "è", "[-é-]{+è+}"},
	}
	for _, tt := range tests {
		if got := shortDiff(tt.before, tt.after); got != tt.want {
			t.Errorf("shortDiff(%q, %q) = %q, want %q", tt.before, tt.after, got, tt.want)
		}
	}
}
