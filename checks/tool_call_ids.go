package checks

// CallCheckIDs are the IDs of the checks of the opt-in tool calls, in the catalogue's order:
// what a page about a server's calls shows beside their steps.
func CallCheckIDs() []string {
	var out []string
	for _, c := range toolCallChecks(nil) {
		out = append(out, c.ID)
	}
	return out
}
