package apiserver

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// jsonFields are the member names a view encodes to, those of embedded structs included.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case f.Anonymous && name == "":
			out = append(out, jsonFields(f.Type)...)
		case name != "-" && name != "":
			out = append(out, name)
		}
	}
	return out
}

// schemaAt walks the document from components/schemas along keys (object members, or indexes
// of arrays given as "0", "1"...) and returns the property names of the schema found there.
func schemaAt(t *testing.T, doc any, keys ...string) []string {
	t.Helper()
	at := doc.(map[string]any)["components"].(map[string]any)["schemas"]
	for _, k := range keys {
		switch v := at.(type) {
		case map[string]any:
			at = v[k]
		case []any:
			i := int(k[0] - '0')
			at = v[i]
		}
		if at == nil {
			t.Fatalf("the document has no schema at %v", keys)
		}
	}
	props, _ := at.(map[string]any)["properties"].(map[string]any)
	var out []string
	for k := range props {
		out = append(out, k)
	}
	return out
}

// The schemas of what the API answers name exactly the members the code encodes: a field added
// to a view (a run's answerMs, say) and not documented fails here.
func TestOpenAPISchemasNameExactlyTheMembersOfTheViews(t *testing.T) {
	t.Parallel()
	var doc any
	if err := json.Unmarshal(openAPIDocument, &doc); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		schema []string
		view   any
	}{
		{[]string{"Server"}, serverView{}},
		{[]string{"Run"}, runView{}},
		{[]string{"Window"}, windowView{}},
		{[]string{"Latency"}, latencyView{}},
		{[]string{"Day"}, dayView{}},
		{[]string{"ServerStatus", "allOf", "1", "properties", "regions", "items"}, regionView{}},
		{[]string{"ServerStatus", "allOf", "1", "properties", "lastError", "oneOf", "1"}, lastErrorView{}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.schema, "/"), func(t *testing.T) {
			documented := schemaAt(t, doc, tt.schema...)
			encoded := jsonFields(reflect.TypeOf(tt.view))
			slices.Sort(documented)
			slices.Sort(encoded)
			if !slices.Equal(documented, encoded) {
				t.Errorf("documented %v\nencoded    %v", documented, encoded)
			}
		})
	}
}
