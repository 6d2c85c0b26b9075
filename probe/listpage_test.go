package probe

import (
	"bytes"
	"encoding/json"
	"maps"
	"testing"
)

// decodedPage is what encoding/json makes of a list result, the way the probe read pages
// before pageCursor and pageToolNames: they must agree with it.
func decodedPage(result []byte) (cursor string, more bool, names map[string]bool, namesOK bool) {
	var c struct {
		NextCursor json.RawMessage `json:"nextCursor"`
	}
	if json.Unmarshal(result, &c) == nil && c.NextCursor != nil && !bytes.Equal(c.NextCursor, []byte("null")) {
		more = json.Unmarshal(c.NextCursor, &cursor) == nil
	}
	var page struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	names = map[string]bool{}
	if json.Unmarshal(result, &page) != nil {
		return cursor, more, names, false
	}
	for _, t := range page.Tools {
		names[t.Name] = true
	}
	return cursor, more, names, true
}

var listPageCorpus = []string{
	`{"tools":[{"name":"echo","inputSchema":{"type":"object"}},{"name":"add"}],"nextCursor":"p2"}`,
	`{"tools":[]}`,
	`{"tools":null,"nextCursor":null}`,
	`{"Tools":[{"NAME":"a"}],"NextCursor":"x"}`,
	`{"tools":[{"name":"a"}],"tools":[{"name":"b"}]}`,
	`{"tools":5,"tools":[{"name":"b"}]}`,
	`{"tools":[{"name":5}]}`,
	`{"tools":[{"name":"a","name":null}]}`,
	`{"tools":[null,{"name":"x"}]}`,
	`{"tools":[1]}`,
	`{"tools":{"name":"a"}}`,
	`{"tools":[{"na\u006de":"esc\"aped \u00e9"}],"nextCursor":"c\u0031"}`,
	`{"tools":[{"name":"caf` + "\xff" + `"}]}`,
	`{"nextCursor":5}`,
	`{"nextCursor":"a","nextCursor":"b"}`,
	`{"nextCursor":{"c":"}"}}`,
	`[]`, `null`, `"x"`, `3`, `{}`, ``,
}

func TestListPageReadersAgreeWithEncodingJSON(t *testing.T) {
	for _, c := range listPageCorpus {
		checkListPage(t, []byte(c))
	}
}

func FuzzListPageReaders(f *testing.F) {
	for _, c := range listPageCorpus {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return // the readers see results cut from messages peekEnvelope accepted
		}
		checkListPage(t, raw)
	})
}

func checkListPage(t *testing.T, raw []byte) {
	t.Helper()
	wantCursor, wantMore, wantNames, wantOK := decodedPage(raw)
	cursor, more := pageCursor(raw)
	if cursor != wantCursor || more != wantMore {
		t.Errorf("%q: pageCursor %q %v, encoding/json %q %v", raw, cursor, more, wantCursor, wantMore)
	}
	names := map[string]bool{}
	ok := pageToolNames(raw, names)
	if ok != wantOK || (ok && !maps.Equal(names, wantNames)) {
		t.Errorf("%q: pageToolNames %v %v, encoding/json %v %v", raw, names, ok, wantNames, wantOK)
	}
}
