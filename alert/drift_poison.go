package alert

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpwatch/mcpwatch/internal/poison"
)

// poisonNews says which tool-poisoning pattern families a tool's description matches now
// that it did not match before ("" for a tool that is new): a changed description that
// starts to match is how a rug pull arrives, so the drift message names it. ok is false
// when the change brought no new match.
func poisonNews(name, before, after string) (line string, ok bool) {
	now := poison.Families(after)
	if len(now) == 0 {
		return "", false
	}
	var was []poison.Family
	if before != "" {
		was = poison.Families(before)
	}
	var added []string
	for _, f := range now {
		if !slices.Contains(was, f) {
			added = append(added, "‘"+f.String()+"’")
		}
	}
	if len(added) == 0 {
		return "", false
	}
	noun := "pattern"
	if len(added) > 1 {
		noun = "patterns"
	}
	subject := fmt.Sprintf("description of `%s` now matches", name)
	if before == "" {
		subject = fmt.Sprintf("description of the new tool `%s` matches", name)
	}
	return fmt.Sprintf("%s tool-poisoning %s %s", subject, noun, strings.Join(added, ", ")), true
}
