package yamlstrict

import (
	"reflect"
	"slices"
	"strings"
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
		dist := distance(fold(key), fold(spelling))
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

// distance is the Levenshtein distance of two keys (bytes: keys are ASCII).
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
