//go:build !unix

package main

import "io"

// terminalWidth is 0 (unknown) where the terminal's size is not asked for: progress then
// assumes 80 columns.
func terminalWidth(io.Writer) int { return 0 }
