package checks

import (
	"github.com/mcpwatch/mcpwatch/probe"
)

// pagedList is the pages of one list method (tools/list, resources/list, ...) as the
// pagination rules (server/utilities/pagination) see them.
type pagedList interface {
	// pageCount is the number of pages the probe asked for.
	pageCount() int
	// pageAt is page i (0-based): its step, whether it was answered with a result, and what
	// it said about the next page.
	pageAt(i int) (st probe.Step, ok bool, cursor pageCursor)
	// keys calls fn with the identity of every item of page i that has one (a tool's name, a
	// resource's uri), in order.
	keys(i int, fn func(key string))
}

// pageCursor is what a page said about the next one.
type pageCursor struct {
	kind cursorKind
	next string // when kind is cursorString
	json string // when kind is cursorOther: what it is, for a message
}

// pagedItems names the items of a list in messages.
type pagedItems struct {
	// item is what one item is called ("tool", "resource").
	item string
	// tools: evidence names the item as a tool, which baselines can match on.
	tools bool
}

// judgePages records every break of the pagination rules across the pages of a list: a page
// that failed after the first, a cursor that is no string, a cursor that repeats (a loop), a
// listing cut by the probe's page limit, and an item listed on two pages.
func judgePages(f *Finding, l pagedList, items pagedItems) {
	cursorPage := map[string]int{} // cursor -> page that returned it
	keyPage := map[string]int{}    // item key -> first page listing it
	n := l.pageCount()
	for i := range n {
		st, ok, cursor := l.pageAt(i)
		page := i + 1
		if !ok {
			f.Fail(Seqs(st.Request, st.Response), "page %d (asked for with the cursor page %d returned) failed: %s", page, page-1, describeStep(st))
			break
		}
		seenHere := map[string]bool{}
		l.keys(i, func(key string) {
			if seenHere[key] {
				return // a duplicate within a page is no pagination fault
			}
			seenHere[key] = true
			if first, dup := keyPage[key]; dup {
				tool := ""
				if items.tools {
					tool = clipName(key)
				}
				f.FailTool(tool, Seqs(st.Response), "%s %s is listed on page %d and again on page %d", items.item, quoteName(key), first, page)
				return
			}
			keyPage[key] = page
		})
		switch cursor.kind {
		case cursorOther:
			f.Fail(Seqs(st.Response), "page %d: nextCursor is %s, not a string", page, cursor.json)
		case cursorString:
			if first, loop := cursorPage[cursor.next]; loop {
				f.Fail(Seqs(st.Response), "page %d returned the cursor %s that page %d already returned: the listing loops", page, clipQuote(cursor.next), first)
				break
			}
			cursorPage[cursor.next] = page
			if i == n-1 {
				// The probe follows every new cursor until its page limit; a last page
				// that still points further means the limit cut the listing.
				f.Fail(Seqs(st.Response), "page %d still returns a nextCursor; the listing goes beyond the probe's limit of %d pages", page, page)
			}
		}
	}
}
