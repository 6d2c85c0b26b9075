package yamlstrict

import (
	"reflect"

	"go.yaml.in/yaml/v3"
)

// Entry is one key and value of an Ordered mapping.
type Entry[T any] struct {
	Key   string
	Value T
}

// Ordered is a mapping of names (headers, environment variables) read in file order, which a
// Go map would lose.
type Ordered[T any] []Entry[T]

func (Ordered[T]) ordered() {}

// orderedMapping is what every Ordered type implements.
type orderedMapping interface{ ordered() }

var orderedType = reflect.TypeFor[orderedMapping]()

// ordered reads a mapping into an Ordered slice of entries.
func (d *decoder) ordered(n *yaml.Node, v reflect.Value, path, written string) {
	out := reflect.MakeSlice(v.Type(), 0, len(n.Content)/2)
	if d.names(n, written, func(k, value *yaml.Node) {
		entry := reflect.New(v.Type().Elem()).Elem()
		entry.Field(0).SetString(k.Value)
		if d.enter(k, value, entry.Field(1), join(path, k.Value), join(written, k.Value)) {
			out = reflect.Append(out, entry)
		}
	}) {
		v.Set(out)
	}
}
