package mcpschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/mcpwatch/mcpwatch/jsondoc"
)

// Decode parses one JSON value the way jsonschema expects it: numbers stay json.Number, so
// that 1.0 and 10000000000000000001 keep their exact text. Trailing data is an error. The
// value is what encoding/json's Decoder with UseNumber gives.
func Decode(raw []byte) (any, error) {
	doc, err := parse(raw)
	if err != nil {
		return nil, err
	}
	return doc.Root().Any(), nil
}

// parse reads raw as one JSON document; what is not one says why in encoding/json's words,
// as Decode always did.
func parse(raw []byte) (*jsondoc.Doc, error) {
	doc, err := jsondoc.Parse(raw)
	if err != nil {
		return nil, decodeError(raw)
	}
	return doc, nil
}

// parseString is parse for text held as a string.
func parseString(text string) (*jsondoc.Doc, error) {
	doc, err := jsondoc.ParseString(text)
	if err != nil {
		return nil, decodeError([]byte(text))
	}
	return doc, nil
}

func decodeError(raw []byte) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: data after the first value", ErrNotJSON)
	}
	return fmt.Errorf("%w: too large", ErrNotJSON)
}
