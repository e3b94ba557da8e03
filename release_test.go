package itick_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/d19c4e34/itick"
)

// modFile is the part of `go mod edit -json` and `go work edit -json` the
// release checks read.
type modFile struct {
	Module  struct{ Path string }
	Require []struct{ Path, Version string }
	Use     []struct{ DiskPath string }
	Replace []struct {
		Old struct{ Path, Version string }
		New struct{ Path, Version string }
	}
}

func readModFile(t *testing.T, verb, path string) modFile {
	t.Helper()
	cmd := exec.Command("go", verb, "edit", "-json", path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s edit -json %s: %v\n%s", verb, path, err, stderr.String())
	}
	var f modFile
	if err := json.Unmarshal(out, &f); err != nil {
		t.Fatalf("go %s edit -json %s: %v", verb, path, err)
	}
	return f
}

// TestVersionIsTheReleaseTheModulesRequire holds the release's numbers
// together: the modules of the repository require the SDK (and each other)
// at v + Version, the version their release is tagged with, and go.work
// points exactly those versions at the checkout. .ci/release sets all of
// them at once.
func TestVersionIsTheReleaseTheModulesRequire(t *testing.T) {
	t.Parallel()
	if !regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`).MatchString(itick.Version) {
		t.Fatalf("Version = %q; want MAJOR.MINOR.PATCH, the tag without its v", itick.Version)
	}
	skipOutsideCheckout(t)
	want := "v" + itick.Version
	work := readModFile(t, "work", "go.work")
	ours := func(path string) bool {
		return path == "github.com/d19c4e34/itick" || strings.HasPrefix(path, "github.com/d19c4e34/itick/")
	}
	required := map[string]bool{}
	for _, use := range work.Use {
		mod := readModFile(t, "mod", filepath.Join(use.DiskPath, "go.mod"))
		for _, r := range mod.Require {
			if ours(r.Path) {
				required[r.Path] = true
				if r.Version != want {
					t.Errorf("%s/go.mod requires %s %s; want %s (Version is %q)", use.DiskPath, r.Path, r.Version, want, itick.Version)
				}
			}
		}
	}
	replaced := map[string]bool{}
	for _, r := range work.Replace {
		if r.Old.Version != want {
			t.Errorf("go.work replaces %s %q; want it at %s only", r.Old.Path, r.Old.Version, want)
		}
		replaced[r.Old.Path] = true
	}
	for path := range required {
		if !replaced[path] {
			t.Errorf("go.work does not point %s %s at the checkout: the workspace would fetch it", path, want)
		}
	}
	if !required["github.com/d19c4e34/itick"] {
		t.Error("no module of go.work requires the SDK: the check reads the wrong files")
	}
}

// TestModulesKeepNoReplaceNorInternalImport checks what `go install` and `go get`
// refuse or regret in a module of the repository: a replace directive in a
// go.mod, and a module of its own importing the SDK's internal packages,
// which would tie its release to the SDK's unexported code of one commit.
func TestModulesKeepNoReplaceNorInternalImport(t *testing.T) {
	t.Parallel()
	skipOutsideCheckout(t)
	internal := regexp.MustCompile(`"github.com/d19c4e34/itick/internal/`)
	mods := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") && d.Name() != ".ci" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.Name() == "go.mod" {
			mods++
			if f := readModFile(t, "mod", path); len(f.Replace) > 0 {
				t.Errorf("%s has a replace directive; go install refuses a module with one (go.work joins the modules instead)", path)
			}
			return nil
		}
		if filepath.Ext(path) != ".go" || !inNestedModule(path) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if internal.Match(src) {
			t.Errorf("%s imports the SDK's internal packages from a module of its own", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if mods < 5 {
		t.Errorf("found %d go.mod files; the root, redisquota, cmd/itick and two examples have one each", mods)
	}
}

// skipOutsideCheckout skips a test run from the SDK's module as released
// (the module cache): its zip carries go.work but leaves out the modules
// the workspace joins.
func skipOutsideCheckout(t *testing.T) {
	t.Helper()
	for _, f := range []string{"go.work", "redisquota/go.mod"} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("not a checkout of the repository: %v", err)
		}
	}
}

// inNestedModule reports whether the file at path (relative to the root)
// lies in a module other than the root's: a folder on its way holds a go.mod.
func inNestedModule(path string) bool {
	for dir := filepath.Dir(path); dir != "." && dir != string(filepath.Separator); dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return true
		}
	}
	return false
}
