//go:build race

package main

// raceEnabled builds the binary under test with the race detector when the
// tests run with it, so the command's own goroutines are checked too.
const raceEnabled = true
