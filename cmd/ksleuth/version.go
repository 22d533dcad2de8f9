package main

// The version command, and the version every table's footer and every
// page names.

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// version is set with -ldflags "-X main.version=..."; otherwise it comes
// from the module build info.
var version = ""

func ksleuthVersion() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return buildVersion(bi)
}

// buildVersion names a build from its build info. go install of a tagged
// module, and go 1.24 and later building a checkout at a clean tag, stamp
// the tag: it is the version. Building any other commit of a checkout, go
// stamps a pseudo-version (v0.0.0-TIME-REV, +dirty with changes) that
// reads like a release; devel+REV says what it is. A build without VCS
// information (go run, go test, a linked git worktree, -buildvcs=false)
// has no revision: "devel".
func buildVersion(bi *debug.BuildInfo) string {
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	v := bi.Main.Version
	tagged := v != "" && v != "(devel)" && !isPseudoVersion(v) && !strings.HasSuffix(v, "+dirty")
	switch {
	case tagged:
		return v
	case rev == "":
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "devel+" + rev
}

// isPseudoVersion reports a version of the form go gives an untagged
// commit: it ends in -TIMESTAMP-REV or .TIMESTAMP-REV, a 14-digit UTC time
// and a 12-digit revision (ignoring a +dirty mark).
func isPseudoVersion(v string) bool {
	v = strings.TrimSuffix(v, "+dirty")
	i := strings.LastIndexByte(v, '-')
	if i < 15 || len(v)-i-1 != 12 || strings.Trim(v[i+1:], "0123456789abcdef") != "" {
		return false
	}
	ts := v[i-14 : i]
	sep := v[i-15]
	return strings.Trim(ts, "0123456789") == "" && (sep == '-' || sep == '.')
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the ksleuth version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "ksleuth %s\n", ksleuthVersion())
			return err
		},
	}
}
