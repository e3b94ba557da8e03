package clockpin

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRepositoryPinsEveryClock applies the rules to every test of the
// repository, all modules: a test that starts a simulator on the real
// clock passes or hangs depending on the day and hour it runs.
func TestRepositoryPinsEveryClock(t *testing.T) {
	t.Parallel()
	rep, err := Check("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		t.Error(f)
	}
	// A check that reads too little passes for nothing.
	if rep.Files < 100 || rep.Starts < 50 {
		t.Errorf("read %d test files holding %d starts: fewer than the repository has", rep.Files, rep.Starts)
	}
}

// TestFindsUnpinnedStarts runs the check on a fixture whose lines ending
// in a comment "want" are the ones it must report, and no others.
func TestFindsUnpinnedStarts(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("testdata/fixture/*.go")
	if err != nil || len(paths) != 2 {
		t.Fatalf("fixture files %v, %v", paths, err)
	}
	rep, err := CheckFiles(paths)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, f := range rep.Findings {
		if filepath.Base(f.Pos.Filename) != "prog_test.go" {
			t.Errorf("a finding outside the tests: %s", f)
			continue
		}
		got = append(got, f.Pos.Line)
		if !strings.Contains(f.Message, "WithFixedClock") || !strings.Contains(f.Message, `"clock: real time"`) {
			t.Errorf("%s: the message does not say how to pin or explain the clock", f)
		}
	}
	src, err := os.ReadFile("testdata/fixture/prog_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for i, line := range strings.Split(string(src), "\n") {
		if strings.HasSuffix(strings.TrimSpace(line), "// want") {
			want = append(want, i+1)
		}
	}
	slices.Sort(got)
	got = slices.Compact(got) // a real clock in a start is reported twice: as such, and as no pin
	if len(want) < 10 {
		t.Fatalf("%d lines marked in the fixture", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines reported (-want +got):\n%s\nfindings: %v", diff, rep.Findings)
	}
}

func TestHasMarker(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{
		"clock: real time, the quota window must pass":                      true,
		"The window passes in real seconds. clock: real\ntime, so it does.": true,
		"clock: none, -h returns first":                                     true,
		"clock: real time":                                                  false,
		"clock: real time, says":                                            false,
		"real time, because the quota window must pass":                     false,
	} {
		if got := hasMarker(text); got != want {
			t.Errorf("hasMarker(%q) = %v, want %v", text, got, want)
		}
	}
}
