package apiserver

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// access says who may call a route.
type access int

const (
	accessOpen  access = iota // always public: health, metrics, the OpenAPI document
	accessRead                // public unless the server is private
	accessWrite               // the admin token, always
)

// tokenMatches compares a presented token with the admin token in constant time. Comparing
// digests keeps the time from telling even the token's length.
func tokenMatches(presented, want string) bool {
	if want == "" {
		return false
	}
	a := sha256.Sum256([]byte(presented))
	b := sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// bearer returns the token of an "Authorization: Bearer ..." header.
func bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// authorize checks a request against the access its route needs. Failed attempts draw on the
// client's rate limit, so that guessing the token is slow.
func (s *API) authorize(r *http.Request, need access) error {
	switch need {
	case accessOpen:
		return nil
	case accessRead:
		if !s.cfg.Private {
			return nil
		}
	case accessWrite:
		if s.cfg.AdminToken == "" {
			return errorf(http.StatusForbidden, codeWritesDisabled, "this server takes no writes: start it with --admin-token-file")
		}
	}
	token, ok := bearer(r)
	if ok && tokenMatches(token, s.cfg.AdminToken) {
		return nil
	}
	if !s.authFailures.allow(clientKey(r)) {
		return errorf(http.StatusTooManyRequests, codeRateLimited, "too many failed attempts; wait and try again")
	}
	if !ok {
		return errorf(http.StatusUnauthorized, codeUnauthorized, "send the admin token as \"Authorization: Bearer <token>\"")
	}
	return errorf(http.StatusUnauthorized, codeUnauthorized, "the token is not the admin token")
}
