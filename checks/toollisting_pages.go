package checks

import "github.com/mcpwatch/mcpwatch/probe"

// A toolListing is a pagedList: tools.pagination judges it by the rules every list shares.
var _ pagedList = (*toolListing)(nil)

func (l *toolListing) pageCount() int { return len(l.pages) }

func (l *toolListing) pageAt(i int) (probe.Step, bool, pageCursor) {
	p := l.pages[i]
	if p == nil {
		return l.steps[i], false, pageCursor{}
	}
	return l.steps[i], true, pageCursor{kind: p.cursor, next: p.nextCursor, json: p.cursorJSON}
}

func (l *toolListing) keys(i int, fn func(string)) {
	for j := range l.pages[i].tools {
		if t := &l.pages[i].tools[j]; t.named {
			fn(t.name)
		}
	}
}
