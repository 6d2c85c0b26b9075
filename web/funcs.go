package web

import (
	"html/template"
	"strings"
	"time"
)

// templateFuncs are the helpers templates may call; formatting lives in format.go.
func templateFuncs() template.FuncMap {
	return template.FuncMap{
		"plural": plural,
		"lower":  strings.ToLower,
		"time":   formatTime,
		"iso":    func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"clock":  func(t time.Time) string { return t.UTC().Format("15:04:05 UTC") },
		"join":   strings.Join,
	}
}
