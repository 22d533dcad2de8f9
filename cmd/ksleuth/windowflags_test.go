package main

import (
	"strings"
	"testing"
)

// TestWindowFlagErrors pins how dump and records name a bad --since or
// --until: the records package reports which bound is wrong, and the
// command line puts its flag's name on it.
func TestWindowFlagErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--since", "yesterday"}, `--since: time "yesterday" is neither RFC 3339`},
		{[]string{"--until", "soon"}, `--until: time "soon" is neither RFC 3339`},
		{[]string{"--since", "2000", "--until", "1000"}, "--since 2000 is not before --until 1000"},
	}
	for _, cmd := range []string{"dump", "records"} {
		for _, c := range cases {
			args := append([]string{cmd}, c.args...)
			_, errOut, code := runCLI(t, append(args, "00000000000000000000.log")...)
			if code != exitUsage || !strings.Contains(errOut, c.want) {
				t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", args, code, errOut, exitUsage, c.want)
			}
		}
	}
}
