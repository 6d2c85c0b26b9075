package apiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"

	"github.com/mcpwatch/mcpwatch/store"
)

// MaxBodyBytes bounds a request body: a server definition is a few hundred bytes.
const MaxBodyBytes = 64 << 10

// readJSON decodes the request body into v: JSON only, at most MaxBodyBytes, no unknown
// fields, exactly one value.
func readJSON(w http.ResponseWriter, r *http.Request, v any) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return errorf(http.StatusUnsupportedMediaType, codeUnsupportedMedia, "send the body as application/json")
	}
	body := http.MaxBytesReader(w, r.Body, MaxBodyBytes)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err != nil {
			return decodeError(err)
		}
		return errorf(http.StatusBadRequest, codeInvalidJSON, "the body holds more than one JSON value")
	}
	return nil
}

// decodeError turns a decoding failure into the answer that names it.
func decodeError(err error) error {
	var tooLarge *http.MaxBytesError
	var syntax *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &tooLarge):
		return errorf(http.StatusRequestEntityTooLarge, codeBodyTooLarge, fmt.Sprintf("the body is larger than %d bytes", tooLarge.Limit))
	case errors.Is(err, io.EOF):
		return errorf(http.StatusBadRequest, codeInvalidJSON, "the body is empty; send a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errorf(http.StatusBadRequest, codeInvalidJSON, "the body ends in the middle of its JSON")
	case errors.As(err, &syntax):
		return errorf(http.StatusBadRequest, codeInvalidJSON, fmt.Sprintf("malformed JSON at byte %d: %v", syntax.Offset, err))
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			field = "the body"
		}
		want := jsonKind(typeErr.Type.Kind())
		if want == "a whole number" && strings.HasSuffix(field, "Ms") {
			want += " of milliseconds"
		}
		return errorf(http.StatusBadRequest, codeInvalidJSON, fmt.Sprintf("%s must be %s, not %s", field, want, jsonValueWords(typeErr.Value)))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		// encoding/json has no type for this one; its message names the field.
		return errorf(http.StatusBadRequest, codeUnknownField, strings.TrimPrefix(err.Error(), "json: ")+"; the OpenAPI document lists the fields")
	}
	return errorf(http.StatusBadRequest, codeInvalidJSON, "malformed JSON: "+err.Error())
}

// jsonKind names the JSON values a Go field of kind k takes.
func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "a value of another type"
}

// jsonValueWords names the value an UnmarshalTypeError found: encoding/json gives its JSON
// type ("string", "bool", "array", "object", "number") or, for a number that does not fit the
// field (1500.0 for an integer), "number " and the number as sent.
func jsonValueWords(value string) string {
	if n, ok := strings.CutPrefix(value, "number "); ok {
		return n
	}
	switch value {
	case "bool":
		return "a boolean"
	case "array", "object":
		return "an " + value
	case "":
		return "another type"
	}
	return "a " + value
}

// refuseUnstorableInput answers 400 to a request whose path or query parameters hold a NUL
// or bytes that are not UTF-8: names and parameters reach the database as text, which cannot
// hold them, and a query failing on them would be answered as the server's own failure (500).
// It serves the dashboard's paths too.
func (s *API) refuseUnstorableInput(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !store.StorableText(r.URL.Path) {
			s.writeError(w, r, errorf(http.StatusBadRequest, codeBadRequest,
				"the path holds a NUL or bytes that are not UTF-8; names are UTF-8 text without control characters"))
			return
		}
		for key, values := range r.URL.Query() {
			if !store.StorableText(key) {
				s.writeError(w, r, errorf(http.StatusBadRequest, codeBadRequest,
					"a query parameter's name holds a NUL or bytes that are not UTF-8"))
				return
			}
			for _, v := range values {
				if !store.StorableText(v) {
					s.writeError(w, r, errorf(http.StatusBadRequest, codeBadRequest,
						fmt.Sprintf("query parameter %q holds a NUL or bytes that are not UTF-8", key)))
					return
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}
