package readme

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDocsLinksResolve checks that every relative link of the README, the
// guides, CONTRIBUTING.md, BENCHMARKS.md and the command's manual points
// at a file or folder of the repository, and at a heading when it names
// one. It runs in a checkout: the SDK's module as released leaves out the
// folders of the modules inside it, which the README links to.
func TestDocsLinksResolve(t *testing.T) {
	t.Parallel()
	if !checkout(root) {
		t.Skip("not a checkout of the repository: links into the modules it joins would not resolve")
	}
	files, err := markdownWithGo(root)
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "CONTRIBUTING.md", "BENCHMARKS.md")
	for _, want := range []string{"cmd/itick/README.md", "docs/reliability.md"} {
		if !slices.Contains(files, want) {
			t.Errorf("%s is not among the files checked: %v", want, files)
		}
	}
	links := 0
	for _, f := range files {
		for _, err := range CheckLinks(root, f) {
			t.Error(err)
		}
		md := mustRead(t, filepath.Join(root, f))
		links += len(Links(md))
	}
	if links < 50 {
		t.Errorf("%d links in %d files: the extraction is broken", links, len(files))
	}
}

// TestCheckLinksFindsBrokenLinks shows the link check can fail: a missing
// file, a missing heading, a link out of the repository and an absolute
// path are each an error naming the file and line; links that resolve,
// links in code, and links with a scheme are not.
func TestCheckLinksFindsBrokenLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "README.md", strings.Join([]string{
		"# Top", // 1
		"See [the guide](docs/guide.md) and [its part](docs/guide.md#part-two-x).",     // 2
		"[gone](docs/gone.md), [no part](docs/guide.md#part-three)",                    // 3
		"[out](../elsewhere.md) [abs](/docs/guide.md) [web](https://example.com/x.md)", // 4
		"`[code](nowhere.md)` and [here](#top) and [not here](#bottom)",                // 5
		"```sh",                    // 6
		"[in a block](nowhere.md)", // 7
		"```",                      // 8
		"[ref]: docs/missing.md",   // 9
		"[folder](docs) [file](docs/guide.md#L3)", // 10
	}, "\n"))
	write(t, dir, "docs/guide.md", "# Guide\n\n## Part two: `x`\n\nBack to the [README](../README.md#top).\n")
	var got []string
	for _, f := range []string{"README.md", "docs/guide.md"} {
		for _, err := range CheckLinks(dir, f) {
			got = append(got, err.Error())
		}
	}
	want := []string{
		"README.md:3: link docs/gone.md: no such file or folder",
		"README.md:3: link docs/guide.md#part-three: docs/guide.md has no heading with the anchor #part-three",
		"README.md:4: link ../elsewhere.md: points outside the repository",
		"README.md:4: link /docs/guide.md: an absolute path: write it relative to README.md",
		"README.md:5: link #bottom: README.md has no heading with the anchor #bottom",
		"README.md:9: link docs/missing.md: no such file or folder",
		"README.md:10: link docs/guide.md#L3: docs/guide.md has no heading with the anchor #L3",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CheckLinks (-want +got):\n%s", diff)
	}
}

func TestSlug(t *testing.T) {
	t.Parallel()
	for heading, want := range map[string]string{
		"From the shell: `itick`":                         "from-the-shell-itick",
		"One program, two backends: `markettest.OpenEnv`": "one-program-two-backends-markettestopenenv",
		"Body48MiB (`internal/transport/memory_test.go`)": "body48mib-internaltransportmemory_testgo",
		"Context errors, and 429 against 504":             "context-errors-and-429-against-504",
		"  Pin the clock ":                                "pin-the-clock",
	} {
		if got := Slug(heading); got != want {
			t.Errorf("Slug(%q) = %q, want %q", heading, got, want)
		}
	}
}
