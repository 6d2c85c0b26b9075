package web

import (
	"reflect"
	"testing"

	"github.com/mcpwatch/mcpwatch/internal/toolsurface"
)

func TestParamsOfListsRequiredFirst(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		schema string
		want   []toolParam
	}{
		{`{"type":"object","properties":{"z":{"type":"string"},"a":{"type":["number","null"]},"m":{}},"required":["z"]}`,
			[]toolParam{{"z", "string", true}, {"a", "number|null", false}, {"m", "", false}}},
		{`{"type":"object"}`, nil},
		{`not json`, nil},
		{`{"properties":{"x":{"type":1}},"required":[7,"x"]}`, []toolParam{{"x", "", true}}},
	} {
		if got := paramsOf([]byte(tc.schema)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("paramsOf(%s) = %+v, want %+v", tc.schema, got, tc.want)
		}
	}
}

func TestChangedPartsNamesWhatChanged(t *testing.T) {
	t.Parallel()
	c := toolsurface.Change{Name: "echo", Description: &toolsurface.DescriptionChange{Before: "a", After: "b"}, InputSchema: true}
	if got := changedParts(c); got != "description, input schema" {
		t.Errorf("changedParts = %q", got)
	}
}
