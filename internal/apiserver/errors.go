package apiserver

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
)

// Error codes: a client branches on these, so they never change meaning. The OpenAPI document
// lists them.
const (
	codeBadRequest       = "bad_request"
	codeInvalidJSON      = "invalid_json"
	codeUnknownField     = "unknown_field"
	codeBodyTooLarge     = "body_too_large"
	codeUnsupportedMedia = "unsupported_media_type"
	codeValidation       = "validation_failed"
	codeForbiddenAddress = "forbidden_address"
	codeBadCursor        = "bad_cursor"
	codeUnauthorized     = "unauthorized"
	codeWritesDisabled   = "writes_disabled"
	codeNotFound         = "not_found"
	codeMethodNotAllowed = "method_not_allowed"
	codeConflict         = "conflict"
	codeManagedElsewhere = "managed_by_config"
	codeRateLimited      = "rate_limited"
	codeInternal         = "internal"
	codeUnavailable      = "unavailable"
)

// apiError is an error answered to the client as it is: status, code and message.
type apiError struct {
	Status  int
	Code    string
	Message string
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

func errorf(status int, code, message string) *apiError {
	return &apiError{Status: status, Code: code, Message: message}
}

// errorBody is the JSON of every error answer.
type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// writeError answers err: an *apiError as it says, anything else as a 500 whose cause is
// logged, not shown (it may name database internals).
func (s *API) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		s.log.ErrorContext(r.Context(), "request failed", slog.String("method", r.Method),
			slog.String("path", r.URL.Path), slog.Any("err", err))
		ae = errorf(http.StatusInternalServerError, codeInternal, "internal error; the server log has the cause")
		if r.Context().Err() != nil {
			ae = errorf(http.StatusServiceUnavailable, codeUnavailable, "the request was cancelled or timed out")
		}
	}
	var body errorBody
	body.Error.Code, body.Error.Message = ae.Code, ae.Message
	s.writeJSON(w, ae.Status, body)
}

// writeJSON answers v as JSON with the given status.
func (s *API) writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.log.Error("encode response", slog.Any("err", err))
		b = []byte(`{"error":{"code":"internal","message":"internal error; the server log has the cause"}}`)
		status = http.StatusInternalServerError
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
