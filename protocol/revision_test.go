package protocol

import (
	"slices"
	"testing"
)

func TestRevisionsAreOrderedAndKnown(t *testing.T) {
	revs := Revisions()
	if !slices.IsSorted(revs) {
		t.Errorf("Revisions() = %v, want oldest first", revs)
	}
	if revs[len(revs)-1] != LatestRevision {
		t.Errorf("newest revision %s, LatestRevision %s", revs[len(revs)-1], LatestRevision)
	}
	sessions := SessionRevisions()
	if sessions[len(sessions)-1] != LatestSessionRevision {
		t.Errorf("newest session revision %s, LatestSessionRevision %s", sessions[len(sessions)-1], LatestSessionRevision)
	}
}

func TestRevisionPredicates(t *testing.T) {
	tests := []struct {
		rev                                  string
		known, session, stateless, sendsHead bool
	}{
		{Revision20241105, true, true, false, false},
		{Revision20250326, true, true, false, false},
		{Revision20250618, true, true, false, true},
		{Revision20251125, true, true, false, true},
		{Revision20260728, true, false, true, true},
		// The bogus revisions are never known: that is what makes them bogus.
		{BogusRevision, false, false, false, false},
		{BogusStatelessRevision, false, false, true, true},
		{"", false, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.rev, func(t *testing.T) {
			if got := KnownRevision(tt.rev); got != tt.known {
				t.Errorf("KnownRevision = %v, want %v", got, tt.known)
			}
			if got := KnownSessionRevision(tt.rev); got != tt.session {
				t.Errorf("KnownSessionRevision = %v, want %v", got, tt.session)
			}
			if got := Stateless(tt.rev); got != tt.stateless {
				t.Errorf("Stateless = %v, want %v", got, tt.stateless)
			}
			if got := SendsProtocolHeader(tt.rev); got != tt.sendsHead {
				t.Errorf("SendsProtocolHeader = %v, want %v", got, tt.sendsHead)
			}
			if got := slices.Contains(SessionRevisions(), tt.rev); got != tt.session {
				t.Errorf("in SessionRevisions = %v, want %v", got, tt.session)
			}
		})
	}
}
