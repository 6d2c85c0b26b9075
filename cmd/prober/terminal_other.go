//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package main

import "io"

// terminalWidth is 0 where the prober does not ask the terminal its size: the report then
// uses COLUMNS or its default.
func terminalWidth(io.Writer) int { return 0 }
