// Package process runs the child processes of the prober, stdio MCP servers, so that none of
// them outlives its probe: Start puts the child in a process group of its own and marks its
// environment, so that the group can be signalled as a whole and the processes that left it
// (a daemon that called setsid) can still be found by the mark and killed; Reap collects the
// members that were re-parented here (AdoptOrphans); Tail keeps the end of what the child
// writes to stderr. It knows nothing of MCP: the stdio transport of package probe speaks the
// protocol over the child's pipes and decides when to end it.
//
// Process groups are a unix notion; elsewhere Start refuses. The processes outside the group
// are found through /proc, so on Linux only; elsewhere the group is the bound.
package process
