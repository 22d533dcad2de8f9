package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fixedClock is the default settings with the report header's time
// pinned, for golden output.
func fixedClock() *settings {
	set := defaultSettings()
	set.now = func() time.Time { return time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC) }
	return set
}

var dataSection = regexp.MustCompile(`(?s)<script type="application/json" id="ksleuth-data">(.*?)</script>`)

// reportData returns the data section of a written report.
func reportData(t *testing.T, file string) map[string]any {
	t.Helper()
	page, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m := dataSection.FindSubmatch(page)
	if m == nil {
		t.Fatalf("%s: no data section", file)
	}
	var data map[string]any
	if err := json.Unmarshal(m[1], &data); err != nil {
		t.Fatalf("%s: data section: %v", file, err)
	}
	return data
}

// TestReportDataGolden checks the data section of the report of the
// sample log dir; go test ./cmd/ksleuth -run TestReportDataGolden -update
// rewrites the golden file.
func TestReportDataGolden(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "report.html")
	mustScanWith(t, fixedClock(), "report", generatedDir, "--html", out, "--jobs", "3", "--progress", "never")
	data := reportData(t, out)
	// The command line names the temporary output file.
	data["command_line"] = strings.ReplaceAll(data["command_line"].(string), out, "REPORT")
	data["ksleuth_version"] = "VERSION"
	got, err := json.MarshalIndent(data, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "golden", "report-generated.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("data section differs from %s (rerun with -update and review the diff):\n%s", golden, reportDiff(string(want), string(got)))
	}
}

func reportDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + ":\n  want " + x + "\n  got  " + y
		}
	}
	return ""
}

// TestReportOutputPlace checks that the page is never written into or
// next to an input, and that a failed run leaves no file behind.
func TestReportOutputPlace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "logs")
	if err := os.CopyFS(in, os.DirFS(filepath.Join(generatedDir, "idempotent-0"))); err != nil {
		t.Fatal(err)
	}
	for _, html := range []string{filepath.Join(in, "r.html"), filepath.Join(in, "sub", "r.html")} {
		if _, _, code := scanCmd(t, "report", in, "--html", html); code != exitUsage {
			t.Errorf("report --html %s inside the input: exit %d, want %d", html, code, exitUsage)
		}
	}
	seg := filepath.Join(in, "00000000000000000000.log")
	if _, _, code := scanCmd(t, "report", seg, "--html", filepath.Join(in, "r.html")); code != exitUsage {
		t.Errorf("report --html next to a file input: exit %d, want %d", code, exitUsage)
	}
	if _, _, code := scanCmd(t, "report", in); code != exitUsage {
		t.Errorf("report without --html: exit %d, want %d", code, exitUsage)
	}
	if _, _, code := scanCmd(t, "scan", in, "--out", filepath.Join(dir, "t"), "--html", filepath.Join(in, "r.html")); code != exitUsage {
		t.Errorf("scan --html inside the input: exit %d, want %d", code, exitUsage)
	}
	// scan --html writes the same page as report.
	out := filepath.Join(dir, "scan.html")
	mustScan(t, "scan", in, "--out", filepath.Join(dir, "tables"), "--html", out, "--progress", "never")
	data := reportData(t, out)
	if n := len(data["runs"].([]any)); n != 1 {
		t.Errorf("scan --html: %d runs, want 1", n)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

// chromiumFlags keep headless Chromium off the network and away from the
// user's profile.
var chromiumFlags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
	"--enable-logging=stderr", "--v=0"}

var consoleLine = regexp.MustCompile(`:CONSOLE[:(]\d*\)?\]? ?.*`)

func chromium(t *testing.T, dir string, args ...string) (stdout, stderr string) {
	t.Helper()
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed; .ci/run installs it (apt-get install -y chromium)")
		}
		t.Skip("\n\n*** SKIPPING the browser test: chromium is not installed (apt-get install -y chromium). CI runs it. ***\n")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	profile, err := os.MkdirTemp(dir, "profile-")
	if err != nil {
		t.Fatal(err)
	}
	all := append(append(append([]string(nil), chromiumFlags...), "--user-data-dir="+profile), args...)
	cmd := exec.CommandContext(ctx, bin, all...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, e.String())
	}
	return o.String(), e.String()
}

// TestReportInBrowser opens the report of the sample in headless
// Chromium from a file URL: the timeline must have one lane per producer
// session and one link per duplicate run, the page no console error, and
// a screenshot is written to the test's temp dir.
func TestReportInBrowser(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "report.html")
	mustScan(t, "report", generatedDir, "--html", out, "--progress", "never")
	abs, err := filepath.Abs(out)
	if err != nil {
		t.Fatal(err)
	}
	url := "file://" + filepath.ToSlash(abs)

	// What the timeline must show, from the other commands.
	var sessions, runs int
	for _, line := range strings.Split(strings.TrimSpace(mustScan(t, "producers", generatedDir, "--json")), "\n") {
		if strings.HasPrefix(line, `{"type":"session"`) {
			sessions++
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(mustScan(t, "dups", generatedDir, "--json")), "\n") {
		var s struct {
			Type string `json:"type"`
			Runs int    `json:"runs"`
		}
		if json.Unmarshal([]byte(line), &s) == nil && s.Type == "summary" {
			runs = s.Runs
		}
	}
	if sessions != 10 || runs != 3 {
		t.Fatalf("sample: %d sessions and %d runs, want 10 and 3 (fixture changed?)", sessions, runs)
	}

	dom, logs := chromium(t, dir, "--dump-dom", url)
	m := regexp.MustCompile(`<pre id="selftest"[^>]*>([^<]*)</pre>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("no self-test result in the DOM (did the page script run?)\n%s", logs)
	}
	var st struct {
		Lanes, Links, Sessions, Runs, Timelines int
		RunRows                                 int `json:"run_rows"`
		Errors                                  []string
		// The cluster timeline's items drawn at the whole range, zoomed
		// into its last tenth, and after a reset.
		ClusterItems   int `json:"cluster_items"`
		ClusterFull    int `json:"cluster_full"`
		ClusterZoomed  int `json:"cluster_zoomed"`
		ClusterBrushed int `json:"cluster_brushed"` // a pointer drag across the same tenth
		ClusterReset   int `json:"cluster_reset"`
	}
	if err := json.Unmarshal([]byte(m[1]), &st); err != nil {
		t.Fatalf("self-test %q: %v", m[1], err)
	}
	if st.Lanes != sessions {
		t.Errorf("timeline has %d lanes, want one per producer session: %d", st.Lanes, sessions)
	}
	if st.Links != runs {
		t.Errorf("timeline has %d links, want one per duplicate run: %d", st.Links, runs)
	}
	if st.RunRows != runs {
		t.Errorf("runs table has %d rows, want %d", st.RunRows, runs)
	}
	// The sample's cluster timeline: its producer sessions, and its
	// duplicate runs, over the time their batches were written.
	if st.ClusterItems < sessions || st.ClusterFull != st.ClusterItems || st.ClusterReset != st.ClusterItems ||
		st.ClusterZoomed < 1 || st.ClusterZoomed >= st.ClusterItems || st.ClusterBrushed != st.ClusterZoomed {
		t.Errorf("cluster timeline: %d items, %d drawn at the whole range, %d in its last tenth (%d brushed), %d after a reset; want all, fewer (but some, the same brushed), all",
			st.ClusterItems, st.ClusterFull, st.ClusterZoomed, st.ClusterBrushed, st.ClusterReset)
	}
	t.Logf("cluster timeline: %d items, %d in the last tenth of the range", st.ClusterItems, st.ClusterZoomed)
	if len(st.Errors) > 0 {
		t.Errorf("page errors: %q", st.Errors)
	}
	for _, c := range consoleLine.FindAllString(logs, -1) {
		t.Errorf("console message: %s", c)
	}

	shot := filepath.Join(dir, "timeline.png")
	_, logs = chromium(t, dir, "--screenshot="+shot, "--window-size=1400,900", url)
	png, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, logs)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG")) || len(png) < 10000 {
		t.Errorf("screenshot %s: %d bytes, not a plausible PNG", shot, len(png))
	}
	for _, c := range consoleLine.FindAllString(logs, -1) {
		t.Errorf("console message: %s", c)
	}
	t.Logf("screenshot: %s", shot)
}
