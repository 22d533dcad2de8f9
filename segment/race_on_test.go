//go:build race

package segment

// raceEnabled: the race detector slows the reader several times over, so
// tests skip their wall-time bounds under it.
const raceEnabled = true
