package apiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/mcpwatch/mcpwatch/internal/netguard"
	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/store"
)

// Bounds of a server registered through the API.
const (
	defaultSchedule = "@every 1m"
	defaultTimeout  = 30 * time.Second
	minTimeout      = time.Second
	maxTimeout      = 120 * time.Second
	maxHeaders      = 10
	maxLabels       = 20
	// maxEnvNameLen bounds the name of the prober's variable a header is read from.
	maxEnvNameLen = 128
)

// serverInput is the body of POST /api/v1/servers and PATCH /api/v1/servers/{server}. Fields
// left out keep their value (PATCH) or default (POST).
type serverInput struct {
	Name      *string            `json:"name"`
	URL       *string            `json:"url"`
	Transport *string            `json:"transport"`
	Headers   *[]headerInput     `json:"headers"`
	Schedule  *string            `json:"schedule"`
	TimeoutMs *int64             `json:"timeoutMs"`
	Labels    *map[string]string `json:"labels"`
	Paused    *bool              `json:"paused"`
	// Calls is read only to be refused by name (refuseCalls): the API takes no tool calls.
	Calls json.RawMessage `json:"calls"`
}

// refuseCalls answers 400 to a request that gives a server tool calls: a call may charge a
// card or delete a row, so only the operator's configuration file may have the monitor make
// one, never a caller of the API.
func refuseCalls(in serverInput) error {
	if in.Calls == nil {
		return nil
	}
	return errorf(http.StatusBadRequest, codeBadRequest,
		"calls: a server registered through the API cannot have tool calls; only the operator's configuration file may have the monitor call a server's tools (calls: under the server)")
}

// headerInput names a header and the prober's environment variable holding its value; the
// value itself never passes through the API.
type headerInput struct {
	Name    string `json:"name"`
	FromEnv string `json:"fromEnv"`
	Prefix  string `json:"prefix"`
}

func invalid(format string, args ...any) error {
	return errorf(http.StatusUnprocessableEntity, codeValidation, fmt.Sprintf(format, args...))
}

// apply checks the input and writes it onto v: by the rules of every server (the store's),
// and on top of them by the API's own for callers it does not trust: no address on an
// internal network, no command, bounded sizes and frequencies, only variables of the prober
// that the operator set aside for it.
func (s *API) apply(r *http.Request, in serverInput, v *store.Server) error {
	if in.URL != nil {
		// The guard's form rules hold the store's (store.CheckServerURL) and add its own.
		if err := s.cfg.Guard.CheckURL(r.Context(), *in.URL); err != nil {
			if errors.Is(err, netguard.ErrBlocked) {
				return errorf(http.StatusUnprocessableEntity, codeForbiddenAddress,
					fmt.Sprintf("url: %v; servers on internal networks can only be added by the operator", strings.TrimPrefix(err.Error(), "netguard: ")))
			}
			return invalid("url: %s", strings.TrimPrefix(err.Error(), "netguard: "))
		}
		v.URL = *in.URL
	}
	if in.Transport != nil {
		t := *in.Transport
		// A server registered through the API is reached by URL: running a command given by
		// a stranger would be remote code execution, so stdio servers come from the config
		// file only.
		ok := slices.Contains(store.URLTransports(), t)
		if t == protocol.TransportStdio {
			return invalid("transport: stdio servers cannot be added through the API (that would run a command given over the network); add them to the config file")
		}
		if !ok {
			return invalid("transport: %s is not one of %s", quote(t), strings.Join(store.URLTransports(), ", "))
		}
		v.Transport = t
	}
	if in.Headers != nil {
		hs := *in.Headers
		if len(hs) > maxHeaders {
			return invalid("headers: at most %d", maxHeaders)
		}
		v.Headers = nil
		for i, h := range hs {
			switch err := store.CheckHeaderName(h.Name); {
			case len(h.Name) > 64 || err != nil && !errors.Is(err, store.ErrReservedHeader):
				return invalid("headers[%d].name: %s is not a header name", i, quote(h.Name))
			case err != nil:
				return invalid("headers[%d].name: %v", i, err)
			}
			v.Headers = append(v.Headers, store.HeaderRef{Name: h.Name, FromEnv: h.FromEnv, Prefix: h.Prefix})
			if store.DuplicateHeader(v.Headers) >= 0 {
				return invalid("headers[%d].name: %s is given twice", i, h.Name)
			}
			if store.CheckFromEnv(h.FromEnv) != nil || len(h.FromEnv) > maxEnvNameLen || !strings.HasPrefix(h.FromEnv, s.cfg.HeaderEnvPrefix) {
				return invalid("headers[%d].fromEnv: name an environment variable of the prober that starts with %s (the value is read there at probe time and never sent to the API)", i, s.cfg.HeaderEnvPrefix)
			}
			if err := store.CheckHeaderPrefix(h.Prefix); err != nil {
				return invalid("headers[%d].prefix: %v", i, err)
			}
			if len(h.Prefix) > 64 {
				return invalid("headers[%d].prefix: longer than 64 bytes", i)
			}
		}
	}
	if in.Schedule != nil {
		if err := checkSchedule(*in.Schedule, s.cfg.MinInterval); err != nil {
			return err
		}
		v.Schedule = *in.Schedule
	}
	if in.TimeoutMs != nil {
		d := time.Duration(*in.TimeoutMs) * time.Millisecond
		if d < minTimeout || d > maxTimeout {
			return invalid("timeoutMs: between %d and %d", minTimeout.Milliseconds(), maxTimeout.Milliseconds())
		}
		v.Timeout = d
	}
	if in.Labels != nil {
		ls := *in.Labels
		if len(ls) > maxLabels {
			return invalid("labels: at most %d", maxLabels)
		}
		v.Labels = map[string]string{}
		for k, val := range ls {
			if store.CheckLabelKey(k) != nil {
				return invalid("labels: key %s must be 1-64 letters, digits and . _ / -", quote(k))
			}
			if err := store.CheckLabelValue(val); err != nil {
				return invalid("labels: value of %s %v", k, err)
			}
			if len(val) > 256 {
				return invalid("labels: value of %s is longer than 256 bytes", k)
			}
			v.Labels[k] = val
		}
	}
	if in.Paused != nil {
		v.Enabled = !*in.Paused
	}
	return nil
}

// checkSchedule accepts a cron expression or descriptor (as the monitor reads them) that
// probes no more often than every min.
func checkSchedule(expr string, minInterval time.Duration) error {
	if len(expr) > 128 {
		return invalid("schedule: longer than 128 bytes")
	}
	sched, err := cron.ParseStandard(expr)
	if err != nil {
		return invalid("schedule: %v (use a cron expression such as \"*/5 * * * *\" or \"@every 5m\")", err)
	}
	// The worker refuses an interval longer than its bound; the parse above took this one.
	if every, ok := strings.CutPrefix(strings.TrimSpace(expr), "@every"); ok {
		if d, err := time.ParseDuration(strings.TrimSpace(every)); err == nil && d > store.MaxScheduleEvery {
			return invalid("schedule: an @every interval is at most %v", store.MaxScheduleEvery)
		}
	}
	// Successive firings from a fixed instant: a cron expression's gaps vary (*/7 in an hour),
	// so several are looked at.
	prev := sched.Next(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	for range 64 {
		next := sched.Next(prev)
		if prev.IsZero() || next.IsZero() {
			return invalid("schedule: never fires")
		}
		if next.Sub(prev) < minInterval {
			return invalid("schedule: fires more often than every %v", minInterval)
		}
		prev = next
	}
	return nil
}

// createServer is POST /api/v1/servers.
func (s *API) createServer(w http.ResponseWriter, r *http.Request) error {
	var in serverInput
	if err := readJSON(w, r, &in); err != nil {
		return err
	}
	if err := refuseCalls(in); err != nil {
		return err
	}
	if in.Name == nil || store.CheckServerName(*in.Name) != nil {
		return invalid("name: required, 1-64 letters, digits and . _ - starting with a letter or digit")
	}
	if in.URL == nil {
		return invalid("url: required")
	}
	v := store.Server{Name: *in.Name, Source: store.SourceAPI, Transport: protocol.TransportHTTP, Schedule: defaultSchedule,
		Timeout: defaultTimeout, Enabled: true}
	if err := s.apply(r, in, &v); err != nil {
		return err
	}
	out, err := s.cfg.Store.CreateServer(r.Context(), v)
	if err != nil {
		return writeFailure(err, v.Name)
	}
	s.statuses.Invalidate()
	s.log.InfoContext(r.Context(), "server registered", "server", out.Name, "client", clientKey(r))
	w.Header().Set("Location", s.links(out.Name).Self)
	s.writeJSON(w, http.StatusCreated, toServerView(out))
	return nil
}

// updateServer is PATCH /api/v1/servers/{server}.
func (s *API) updateServer(w http.ResponseWriter, r *http.Request) error {
	var in serverInput
	if err := readJSON(w, r, &in); err != nil {
		return err
	}
	if err := refuseCalls(in); err != nil {
		return err
	}
	name := r.PathValue("server")
	if in.Name != nil && *in.Name != name {
		return invalid("name: a server cannot be renamed; delete it and register it again")
	}
	return s.change(w, r, name, func(v *store.Server) error { return s.apply(r, in, v) })
}

// pauseServer is POST /api/v1/servers/{server}/pause.
func (s *API) pauseServer(w http.ResponseWriter, r *http.Request) error {
	return s.change(w, r, r.PathValue("server"), func(v *store.Server) error { v.Enabled = false; return nil })
}

// resumeServer is POST /api/v1/servers/{server}/resume.
func (s *API) resumeServer(w http.ResponseWriter, r *http.Request) error {
	return s.change(w, r, r.PathValue("server"), func(v *store.Server) error { v.Enabled = true; return nil })
}

func (s *API) change(w http.ResponseWriter, r *http.Request, name string, fn func(*store.Server) error) error {
	out, err := s.cfg.Store.UpdateServerOf(r.Context(), store.SourceAPI, name, fn)
	if err != nil {
		return writeFailure(err, name)
	}
	s.statuses.Invalidate()
	s.log.InfoContext(r.Context(), "server changed", "server", out.Name, "paused", !out.Enabled, "client", clientKey(r))
	s.writeJSON(w, http.StatusOK, toServerView(out))
	return nil
}

// deleteServer is DELETE /api/v1/servers/{server}.
func (s *API) deleteServer(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("server")
	if err := s.cfg.Store.DeleteServerOf(r.Context(), store.SourceAPI, name); err != nil {
		return writeFailure(err, name)
	}
	s.statuses.Invalidate()
	s.log.InfoContext(r.Context(), "server deleted", "server", name, "client", clientKey(r))
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// writeFailure turns a store error of a write into its answer.
func writeFailure(err error, name string) error {
	var ae *apiError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.Is(err, store.ErrNotFound):
		return errorf(http.StatusNotFound, codeNotFound, "no server is named "+quote(name))
	case errors.Is(err, store.ErrServerExists):
		return errorf(http.StatusConflict, codeConflict, "a server named "+quote(name)+" exists already")
	case errors.Is(err, store.ErrNameTaken):
		return errorf(http.StatusConflict, codeManagedElsewhere, "server "+quote(name)+" comes from the config file; change it there")
	case errors.Is(err, store.ErrInvalidServer):
		return invalid("%s", strings.TrimPrefix(err.Error(), "store: "))
	}
	return err
}
