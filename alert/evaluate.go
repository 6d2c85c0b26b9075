package alert

import (
	"cmp"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// evaluator turns one observation and the stored state of its server into the changes to
// store: it is the whole alerting logic, free of I/O, so that tests drive it run by run.
type evaluator struct {
	cfg     *Config
	windows []maintenance
	router  router
	// newIncident makes incident ids (UUIDs).
	newIncident func() string
}

func newEvaluator(cfg *Config) (*evaluator, error) {
	windows, err := compileMaintenance(cfg.Maintenance)
	if err != nil {
		return nil, err
	}
	return &evaluator{cfg: cfg, windows: windows, router: newRouter(cfg), newIncident: randomUUID}, nil
}

type stateKey struct {
	kind Kind
	key  string
}

// Reasons nothing was sent, as the history records them.
const (
	mutedByRoute       = "muted by a route"
	mutedNoChannel     = "no channel configured"
	mutedNeverAnnounce = "resolved before it was announced"
	mutedNoResolved    = "send-on-resolved is off"
	mutedFlapping      = "held open while flapping"
	mutedMaintenance   = "maintenance window "
)

// HeldBackByMaintenance reads the reason a history transition was muted: the name of the
// maintenance window that held it back, and whether one did. A status page uses it to say why
// an open alert has not been announced.
func HeldBackByMaintenance(muted string) (window string, ok bool) {
	return strings.CutPrefix(muted, mutedMaintenance)
}

// decide is the update of one observation, for store.UpdateAlerts.
func (e *evaluator) decide(obs *Observation, snap store.AlertSnapshot) (store.AlertChanges, error) {
	mem, err := decodeMemory(snap.Memory)
	if err != nil {
		return store.AlertChanges{}, err
	}
	if r := mem.regions[obs.Region]; r != nil && !obs.At.After(r.LastAt) {
		return store.AlertChanges{}, nil // a repeat (a retried Observe) or a run out of order
	}
	states := map[stateKey]*store.AlertState{}
	before := map[stateKey]store.AlertState{}
	for _, st := range snap.States {
		k := stateKey{Kind(st.Kind), st.Key}
		before[k] = st
		cp := st
		cp.Cycles = slices.Clone(st.Cycles)
		states[k] = &cp
	}

	var changes store.AlertChanges
	touched, err := e.apply(&changes, obs, e.conditions(obs, mem, states), states)
	if err != nil {
		return store.AlertChanges{}, err
	}
	keys := slices.SortedFunc(maps.Keys(states), func(a, b stateKey) int {
		return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.key, b.key))
	})
	for _, k := range keys {
		if !touched[k] {
			if err := e.followUp(&changes, obs, states[k]); err != nil {
				return store.AlertChanges{}, err
			}
		}
	}
	for _, k := range keys {
		if old, ok := before[k]; !ok || !sameState(old, *states[k]) {
			changes.States = append(changes.States, *states[k])
		}
	}
	if changes.Memory, err = mem.changedParts(snap.Memory); err != nil {
		return store.AlertChanges{}, err
	}
	return changes, nil
}

// conditions runs the evaluators of the enabled kinds, which update the memory as they go.
func (e *evaluator) conditions(obs *Observation, mem *memory, states map[stateKey]*store.AlertState) []condition {
	firing := func(k Kind, key string) bool {
		st := states[stateKey{k, key}]
		return st != nil && st.Status == store.AlertFiring
	}
	e.observeRegion(obs, mem.regions)
	var conds []condition
	if *e.cfg.Down.Enabled {
		conds = append(conds, e.down(obs, mem.regions)...)
	}
	if *e.cfg.Conformance.Enabled {
		conds = append(conds, e.conformance(obs, mem.checks, firing)...)
	}
	if *e.cfg.Drift.Enabled {
		conds = append(conds, e.drift(obs, &mem.tools)...)
	}
	if *e.cfg.Latency.Enabled {
		conds = append(conds, e.latency(obs, mem.latency)...)
	}
	if *e.cfg.Certificate.Enabled {
		conds = append(conds, e.certificate(obs)...)
	}
	return conds
}

// apply steps each alert through its condition and records the events; it returns the alerts
// that had one.
func (e *evaluator) apply(changes *store.AlertChanges, obs *Observation, conds []condition, states map[stateKey]*store.AlertState) (map[stateKey]bool, error) {
	flap := e.flapPolicy()
	touched := map[stateKey]bool{}
	for _, c := range conds {
		// Every message links to the run it is about: the failing run, unless the kind's
		// evaluator named another one (down: the latest failure of any region).
		c.ev.RunID = cmp.Or(c.ev.RunID, obs.RunID)
		k := stateKey{c.kind, c.key}
		st := states[k]
		if st == nil {
			if c.state != condBad {
				continue // an alert is stored from its first bad run on
			}
			st = &store.AlertState{ServerID: obs.ServerID, Kind: string(c.kind), Key: c.key, Status: store.AlertOK}
			states[k] = st
		}
		wasAnnounced := st.Status == store.AlertFiring && !st.NotifiedAt.IsZero()
		before := st.Details
		events := step(st, c, obs.At, flap, e.newIncident)
		if len(events) == 0 && c.regionSet && c.state == condBad && wasAnnounced && regionsChanged(before, c.ev.Regions) {
			events = []string{histChanged}
		}
		if c.state == condBad {
			// The latest evidence, for reminders and late announcements.
			ev := c.ev
			ev.Since = cmp.Or(st.Since, ev.Since)
			raw, err := json.Marshal(ev)
			if err != nil {
				return nil, fmt.Errorf("alert: encode evidence: %w", err)
			}
			st.Details = raw
		}
		for _, name := range events {
			touched[k] = true
			ev := c.ev
			if name == histFlapping {
				ev = e.flappingEvidence(obs.Server, st, c, obs.At)
			}
			ev.Since = cmp.Or(st.Since, ev.Since)
			if err := e.record(changes, obs, st, name, ev); err != nil {
				return nil, err
			}
		}
	}
	return touched, nil
}

func (e *evaluator) flapPolicy() flapPolicy {
	return flapPolicy{threshold: *e.cfg.Flapping.Threshold, window: e.cfg.Flapping.Window, quiet: e.cfg.Flapping.Quiet}
}

// regionsChanged reports whether the regions of an alert's stored evidence differ from now.
func regionsChanged(details []byte, now []string) bool {
	var last Evidence
	if len(details) == 0 || json.Unmarshal(details, &last) != nil {
		return false // nothing to compare with: no update rather than a wrong one
	}
	return !slices.Equal(last.Regions, now)
}

// followUp announces an open alert that was muted until now, or reminds of an announced one.
func (e *evaluator) followUp(changes *store.AlertChanges, obs *Observation, st *store.AlertState) error {
	if st.Status != store.AlertFiring {
		return nil
	}
	var name string
	switch {
	case st.NotifiedAt.IsZero():
		name = histAnnounced
	case e.cfg.ReminderInterval > 0 && obs.At.Sub(st.NotifiedAt) >= e.cfg.ReminderInterval:
		name = histReminded
	default:
		return nil
	}
	if e.muteReason(obs, st, name) != "" {
		return nil // nothing to say until it can be sent
	}
	var ev Evidence
	if len(st.Details) > 0 {
		if err := json.Unmarshal(st.Details, &ev); err != nil {
			return fmt.Errorf("alert: decode evidence of %s/%s: %w", st.Kind, st.Key, err)
		}
	}
	ev.Since = st.Since
	if name == histAnnounced {
		ev.HeldBack = e.heldBackBy(obs, st)
	}
	if st.Held && !st.CondBad && Kind(st.Kind) != KindDrift {
		ev = e.heldEvidence(obs.Server, st, ev, obs.At)
	}
	return e.record(changes, obs, st, name, ev)
}

// flappingEvidence is what a flapping alert shows: the last bad evidence and why it stays open.
func (e *evaluator) flappingEvidence(server string, st *store.AlertState, c condition, at time.Time) Evidence {
	ev := c.ev
	if c.state != condBad && len(st.Details) > 0 {
		var last Evidence
		if json.Unmarshal(st.Details, &last) == nil {
			ev = last
		}
	}
	if c.kind == KindDrift {
		ev.Lines = append(slices.Clone(ev.Lines), fmt.Sprintf("the tool surface changed %d times within %s: further changes are recorded but not sent until it stays unchanged for %s",
			e.flapPolicy().count(st.Cycles, at), durationText(e.cfg.Flapping.Window), durationText(e.cfg.Flapping.Quiet)))
		ev.HeldOpen = true
		return ev
	}
	return e.heldEvidence(server, st, ev, at)
}

// heldEvidence is what an alert held open while its condition is good again says, in its
// flapping message and its reminders: that it is good again, since when, and when it closes.
// last is the evidence of its last bad run.
func (e *evaluator) heldEvidence(server string, st *store.AlertState, last Evidence, at time.Time) Evidence {
	// The last failure is named in a line and by its run; its details (codes, error, the
	// regions' lines) would read as if it were failing still.
	ev := Evidence{Regions: last.Regions, Since: last.Since, Rule: last.Rule, Spec: last.Spec, RunID: last.RunID, HeldOpen: true}
	good := server + " " + ResolvedHeadline(Kind(st.Kind), st.Key)
	ev.GoodSince = quietSince(st.Cycles)
	n := e.flapPolicy().count(st.Cycles, at)
	quiet := durationText(e.cfg.Flapping.Quiet)
	if ev.GoodSince.IsZero() {
		ev.Summary = fmt.Sprintf("held open while flapping: it resolved %d times within %s; last failure: %s", n, durationText(e.cfg.Flapping.Window), last.Summary)
		return ev
	}
	closes := ev.GoodSince.Add(e.cfg.Flapping.Quiet)
	ev.Summary = fmt.Sprintf("held open while flapping: %s since %s, after resolving %d times within %s; it resolves if it stays so until %s",
		good, timeText(ev.GoodSince), n, durationText(e.cfg.Flapping.Window), timeText(closes))
	ev.Lines = []string{
		fmt.Sprintf("%s since %s (%s)", good, timeText(ev.GoodSince), durationText(at.Sub(ev.GoodSince))),
		fmt.Sprintf("held open because it resolved %d times within %s; it resolves after %s without a relapse", n, durationText(e.cfg.Flapping.Window), quiet),
		"last failure: " + last.Summary,
	}
	return ev
}

// heldBackBy says which maintenance window kept an alert's first message back, "" when none
// did (it was muted for another reason, or the window has since left the configuration).
func (e *evaluator) heldBackBy(obs *Observation, st *store.AlertState) string {
	name, end := maintenanceAt(e.windows, st.FiredAt, obs.Server)
	if name == "" {
		return ""
	}
	return fmt.Sprintf("held back by maintenance window %s: the alert opened at %s, in the window, which closed at %s",
		name, timeText(st.FiredAt), timeText(end))
}

// record adds a history event and, unless something mutes it, its notifications.
func (e *evaluator) record(changes *store.AlertChanges, obs *Observation, st *store.AlertState, name string, ev Evidence) error {
	details, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("alert: encode evidence: %w", err)
	}
	event := store.AlertEvent{
		ServerID: obs.ServerID, Server: obs.Server, Kind: st.Kind, Key: st.Key, Incident: st.Incident,
		Event: name, At: obs.At, Regions: ev.Regions, Summary: ev.Summary, Details: details,
		Muted: e.muteReason(obs, st, name),
	}
	if event.Muted == "" {
		msg := Message{Event: messageEvent(name), Kind: Kind(st.Kind), Key: st.Key, ServerID: obs.ServerID,
			Server: obs.Server, Incident: st.Incident, At: obs.At, Evidence: ev}
		payload, err := json.Marshal(msg)
		if err != nil {
			return fmt.Errorf("alert: encode message: %w", err)
		}
		dests, _ := e.router.route(obs.Server, obs.Labels)
		for _, d := range dests {
			event.Outbox = append(event.Outbox, store.OutboxItem{Channel: d.channel, Target: d.target, Payload: payload})
		}
		if name != histResolved && name != histChanged {
			// An update corrects what was said; reminders still count from the last message.
			st.NotifiedAt = obs.At
		}
	}
	if name == histResolved {
		st.NotifiedAt = time.Time{}
	}
	changes.Events = append(changes.Events, event)
	return nil
}

// muteReason says why an event of an alert sends nothing, "" when it is sent.
func (e *evaluator) muteReason(obs *Observation, st *store.AlertState, name string) string {
	dests, muted := e.router.route(obs.Server, obs.Labels)
	switch {
	case muted:
		return mutedByRoute
	case len(dests) == 0:
		return mutedNoChannel
	case name == histChanged && Kind(st.Kind) == KindDrift:
		return mutedFlapping
	case name == histResolved && st.NotifiedAt.IsZero():
		return mutedNeverAnnounce
	case name == histResolved && !*e.cfg.SendOnResolved:
		return mutedNoResolved
	case name == histResolved:
		// A resolution of an announced alert is sent even in a maintenance window, so that
		// no channel is left with an incident that never closes.
		return ""
	}
	if w := activeMaintenance(e.windows, obs.At, obs.Server); w != "" {
		return mutedMaintenance + w
	}
	return ""
}

func messageEvent(history string) string {
	switch history {
	case histResolved:
		return EventResolved
	case histReminded:
		return EventReminder
	case histFlapping:
		return EventFlapping
	case histChanged:
		return EventUpdate
	}
	return EventFiring // fired, announced
}

func sameState(a, b store.AlertState) bool {
	return a.Status == b.Status && a.Incident == b.Incident && a.Since.Equal(b.Since) &&
		a.FiredAt.Equal(b.FiredAt) && a.ResolvedAt.Equal(b.ResolvedAt) && a.NotifiedAt.Equal(b.NotifiedAt) &&
		a.Held == b.Held && a.CondBad == b.CondBad &&
		slices.EqualFunc(a.Cycles, b.Cycles, time.Time.Equal) && jsonEqual(a.Details, b.Details)
}

// randomUUID returns a version 4 UUID.
func randomUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	b[6] = 0x40 | b[6]&0x0f
	b[8] = 0x80 | b[8]&0x3f
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
