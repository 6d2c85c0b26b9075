package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// decodeJSON writes the report and reads it back as generic JSON, the way a consumer does.
func decodeJSON(t *testing.T, r *Report) map[string]any {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	dec := json.NewDecoder(&buf)
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("report is not one JSON object: %v", err)
	}
	if dec.More() {
		t.Fatal("more than one JSON value")
	}
	return out
}

func TestJSONHoldsTheContractFieldsWithTheirTypes(t *testing.T) {
	tests := []struct {
		name          string
		report        *Report
		wantVersion   any // string or nil
		wantServerObj bool
	}{
		{"initialized", Build(stdioResult(), stdioFindings(), BuildOptions{}), "2025-06-18", true},
		{"initialize failed", Build(httpInitFailedResult(), httpInitFailedFindings(), BuildOptions{}), nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := decodeJSON(t, tc.report)
			for _, key := range []string{"target", "transport", "protocolVersion", "serverInfo", "checks", "steps", "summary"} {
				if _, ok := doc[key]; !ok {
					t.Errorf("missing %q", key)
				}
			}
			if _, ok := doc["target"].(string); !ok {
				t.Errorf("target is %T", doc["target"])
			}
			if _, ok := doc["transport"].(string); !ok {
				t.Errorf("transport is %T", doc["transport"])
			}
			if doc["protocolVersion"] != tc.wantVersion {
				t.Errorf("protocolVersion = %#v, want %#v", doc["protocolVersion"], tc.wantVersion)
			}
			if _, isObj := doc["serverInfo"].(map[string]any); isObj != tc.wantServerObj || (!isObj && doc["serverInfo"] != nil) {
				t.Errorf("serverInfo = %#v", doc["serverInfo"])
			}
			checkList, ok := doc["checks"].([]any)
			if !ok || len(checkList) == 0 {
				t.Fatalf("checks = %#v", doc["checks"])
			}
			for _, c := range checkList {
				c := c.(map[string]any)
				for _, key := range []string{"id", "status", "message"} {
					if _, ok := c[key].(string); !ok {
						t.Errorf("check %v: %s is %T", c["id"], key, c[key])
					}
				}
				sev, present := c["severity"]
				if !present {
					t.Errorf("check %v: no severity key", c["id"])
				}
				if _, isStr := sev.(string); !isStr && sev != nil {
					t.Errorf("check %v: severity is %T", c["id"], sev)
				}
				for _, e := range asList(c["evidence"]) {
					e := e.(map[string]any)
					if _, ok := e["message"].(string); !ok {
						t.Errorf("check %v: evidence without message", c["id"])
					}
					for _, f := range asList(e["frames"]) {
						if _, ok := f.(json.Number); !ok {
							t.Errorf("check %v: frame %#v is not a number", c["id"], f)
						}
					}
				}
			}
			steps, ok := doc["steps"].([]any)
			if !ok || len(steps) == 0 {
				t.Fatalf("steps = %#v", doc["steps"])
			}
			for _, s := range steps {
				s := s.(map[string]any)
				if _, ok := s["method"].(string); !ok {
					t.Errorf("step without method: %v", s)
				}
				lat, present := s["latencyMs"]
				if !present {
					t.Errorf("step %v: no latencyMs key", s["method"])
				}
				if _, isNum := lat.(json.Number); !isNum && lat != nil {
					t.Errorf("step %v: latencyMs is %T", s["method"], lat)
				}
				for _, key := range []string{"errorCode", "httpStatus"} {
					if v, present := s[key]; present {
						if n, ok := v.(json.Number); !ok || strings.Contains(n.String(), ".") {
							t.Errorf("step %v: %s = %#v, want an integer", s["method"], key, v)
						}
					}
				}
			}
			summary, ok := doc["summary"].(map[string]any)
			if !ok {
				t.Fatalf("summary = %#v", doc["summary"])
			}
			for _, key := range []string{"pass", "fail", "warn", "skip", "info", "total"} {
				if _, ok := summary[key].(json.Number); !ok {
					t.Errorf("summary.%s = %#v", key, summary[key])
				}
			}
			if _, ok := doc["durationMs"].(json.Number); !ok {
				t.Errorf("durationMs = %#v", doc["durationMs"])
			}
			if v := doc["verdict"]; v != "pass" && v != "fail" {
				t.Errorf("verdict = %#v", v)
			}
		})
	}
}

func TestJSONStepsCarryTheExactCodeAndStatus(t *testing.T) {
	res := stdioResult()
	code := int64(-32601)
	res.Steps[4].Outcome, res.Steps[4].ErrorCode, res.Steps[4].Err = "error", &code, ""
	doc := decodeJSON(t, Build(res, nil, BuildOptions{}))
	step := doc["steps"].([]any)[4].(map[string]any)
	if step["errorCode"] != json.Number("-32601") {
		t.Errorf("errorCode = %#v", step["errorCode"])
	}
	doc = decodeJSON(t, Build(httpInitFailedResult(), nil, BuildOptions{}))
	step = doc["steps"].([]any)[0].(map[string]any)
	if step["httpStatus"] != json.Number("500") || step["latencyMs"] != json.Number("3.25") {
		t.Errorf("http step = %v", step)
	}
	if _, present := step["errorCode"]; present {
		t.Error("errorCode present on a step without a JSON-RPC error")
	}
}

func TestJSONIsStableAndEmptyListsAreArrays(t *testing.T) {
	res := httpInitFailedResult()
	res.Steps = nil
	r := Build(res, nil, BuildOptions{})
	var a, b bytes.Buffer
	if err := WriteJSON(&a, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&b, Build(res, nil, BuildOptions{})); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Error("two writes of the same report differ")
	}
	for _, want := range []string{`"checks": []`, `"steps": []`, `"protocolVersion": null`, `"serverInfo": null`} {
		if !strings.Contains(a.String(), want) {
			t.Errorf("missing %s in\n%s", want, a.String())
		}
	}
	// Field order follows the contract: identity first, then verdict, then detail.
	order := []string{`"target"`, `"transport"`, `"protocolVersion"`, `"serverInfo"`, `"verdict"`, `"summary"`, `"checks"`, `"steps"`}
	last := -1
	for _, key := range order {
		i := strings.Index(a.String(), key)
		if i < last {
			t.Errorf("%s out of order", key)
		}
		last = i
	}
}

func TestJSONTranscriptFramesOnlyWithVerbose(t *testing.T) {
	doc := decodeJSON(t, Build(stdioResult(), stdioFindings(), BuildOptions{Verbose: true}))
	frames := asList(doc["transcript"])
	if len(frames) != 11 {
		t.Fatalf("transcript has %d frames", len(frames))
	}
	f := frames[0].(map[string]any)
	for _, key := range []string{"seq", "conn", "dir", "kind", "atMs", "raw", "size"} {
		if _, ok := f[key]; !ok {
			t.Errorf("frame lacks %q: %v", key, f)
		}
	}
	doc = decodeJSON(t, Build(stdioResult(), stdioFindings(), BuildOptions{}))
	if _, ok := doc["transcript"]; ok {
		t.Error("transcript present without verbose")
	}
	if len(asList(doc["citedFrames"])) == 0 {
		t.Error("no cited frames for a failing report")
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
