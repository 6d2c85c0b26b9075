package pgtest

import "testing"

func TestWithSearchPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
	}{
		{"postgres://u@h:5432/db?sslmode=disable", "postgres://u@h:5432/db?search_path=test_x&sslmode=disable"},
		{"postgresql://u@h/db", "postgresql://u@h/db?search_path=test_x"},
		{"postgres://u@h/db?search_path=other", "postgres://u@h/db?search_path=test_x"},
		{"host=h user=u dbname=db", "host=h user=u dbname=db search_path=test_x"},
	}
	for _, tt := range tests {
		got, err := withSearchPath(tt.in, "test_x")
		if err != nil || got != tt.want {
			t.Errorf("withSearchPath(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestRedactHidesThePassword(t *testing.T) {
	t.Parallel()
	if got := redact("postgres://u:secret@h/db"); got != "postgres://u:xxxxx@h/db" {
		t.Errorf("redact = %q", got)
	}
	if got := redact("host=h password=secret"); got != "the configured database" {
		t.Errorf("redact of a keyword string = %q", got)
	}
}

func TestNewGivesEachTestItsOwnSchema(t *testing.T) {
	t.Parallel()
	a, b := New(t), New(t)
	if a.Schema == b.Schema {
		t.Fatalf("two schemas share the name %s", a.Schema)
	}
	pool := a.Pool(t)
	var current string
	if err := pool.QueryRow(t.Context(), `SELECT current_schema()`).Scan(&current); err != nil {
		t.Fatal(err)
	}
	if current != a.Schema {
		t.Errorf("pool's current_schema() = %q, want %q", current, a.Schema)
	}
}
