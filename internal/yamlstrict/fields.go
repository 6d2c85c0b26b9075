package yamlstrict

import (
	"reflect"
	"slices"
	"strings"

	"github.com/mcpwatch/mcpwatch/internal/similar"
)

// structFields are the keys of a struct type.
type structFields struct {
	byKey map[string]field // every spelling
	known string           // the canonical keys, sorted, comma-separated
}

// field is a struct field and its canonical key.
type field struct {
	index int
	key   string
}

// fieldsOf reads the keys of t from its `yaml` and `alias` tags.
func fieldsOf(t reflect.Type) structFields {
	out := structFields{byKey: map[string]field{}}
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out.byKey[name] = field{index: i, key: name}
		keys = append(keys, name)
		if aliases := f.Tag.Get("alias"); aliases != "" {
			for a := range strings.SplitSeq(aliases, ",") {
				out.byKey[a] = field{index: i, key: name}
			}
		}
	}
	slices.Sort(keys)
	out.known = strings.Join(keys, ", ")
	return out
}

// didYouMean suggests the known key closest to an unknown one: the same but for case and
// separators (fromenv, from_env), or one or two letters off (timout).
func didYouMean(key string, fields structFields) string {
	best, bestDistance := "", 3
	for spelling, f := range fields.byKey {
		dist := similar.Distance(fold(key), fold(spelling))
		if dist < bestDistance || (dist == bestDistance && f.key < best) {
			best, bestDistance = f.key, dist
		}
	}
	if best == "" {
		return ""
	}
	return "; did you mean " + best + "?"
}

// fold drops case and the separators of kebab-case and snake_case.
func fold(s string) string {
	return strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(s))
}
