package report

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteJSON writes the report as one indented JSON object (the contract of docs/checks.md). The
// field order is the order of the Report type; map keys come sorted.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// Evidence quotes server bytes such as "<html>"; escaping them would only obscure it.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("report: writing json: %w", err)
	}
	return nil
}

func jsonFormat() Format {
	return Format{
		Name:        "json",
		Description: "one JSON object, the machine-readable report",
		Write:       func(w io.Writer, r *Report, _ WriteOptions) error { return WriteJSON(w, r) },
	}
}
