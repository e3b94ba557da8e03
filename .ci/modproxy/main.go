// Command modproxy writes a Go module proxy, as files, from the release tags
// of a Git repository: for each tag vX.Y.Z (the module at the root) or
// DIR/vX.Y.Z (the module in DIR), the .info, .mod and .zip files the go
// command fetches, and the list of versions, under the module's path. With
// GOPROXY=file://OUT first, the go command installs those versions as it
// would from a public proxy. It is its own module so that golang.org/x/mod,
// which makes the zips, never enters the SDK's module graph.
//
// Usage:
//
//	modproxy -repo DIR -out OUT [-rev REV] [TAG...]
//
// Without TAGs it takes every tag of the repository that names a version.
// With -rev, each TAG is a name the version would be tagged with, and its
// files come from REV instead: the proxy a release would make from a commit
// not tagged yet.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	"golang.org/x/mod/zip"
)

func main() {
	repo := flag.String("repo", ".", "the Git repository's top folder")
	out := flag.String("out", "", "the folder to write the proxy to (GOPROXY=file://OUT)")
	rev := flag.String("rev", "", "take every TAG's files from this revision instead of from the tag")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "modproxy: -out is required")
		os.Exit(2)
	}
	if err := run(*repo, *out, *rev, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
}

func run(repo, out, rev string, tags []string) error {
	repo, err := filepath.Abs(repo)
	if err != nil {
		return err
	}
	if len(tags) == 0 {
		if rev != "" {
			return errors.New("-rev needs the TAGs to make")
		}
		listed, err := git(repo, "tag", "--list")
		if err != nil {
			return err
		}
		for _, tag := range strings.Fields(listed) {
			if _, version := splitTag(tag); semver.IsValid(version) {
				tags = append(tags, tag)
			}
		}
		if len(tags) == 0 {
			return fmt.Errorf("%s has no version tags", repo)
		}
	}
	versions := map[string][]string{} // module path -> versions written
	for _, tag := range tags {
		from := tag
		if rev != "" {
			from = rev
		}
		path, version, err := writeVersion(repo, out, tag, from)
		if err != nil {
			return fmt.Errorf("%s: %w", tag, err)
		}
		versions[path] = append(versions[path], version)
		fmt.Printf("%s %s (from %s)\n", path, version, from)
	}
	for path, vs := range versions {
		dir, err := versionDir(out, path)
		if err != nil {
			return err
		}
		// Keep the versions an earlier run wrote to the same folder.
		if listed, err := os.ReadFile(filepath.Join(dir, "list")); err == nil {
			vs = append(vs, strings.Fields(string(listed))...)
		}
		semver.Sort(vs)
		if err := os.WriteFile(filepath.Join(dir, "list"), []byte(strings.Join(slices.Compact(vs), "\n")+"\n"), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// splitTag splits "redisquota/v1.2.3" into "redisquota" and "v1.2.3", and
// "v1.2.3" into "" and "v1.2.3".
func splitTag(tag string) (dir, version string) {
	if i := strings.LastIndex(tag, "/"); i >= 0 {
		return tag[:i], tag[i+1:]
	}
	return "", tag
}

// writeVersion writes the proxy's files for the module tag names, made
// from revision from, and returns the module's path and version.
func writeVersion(repo, out, tag, from string) (path, version string, err error) {
	dir, version := splitTag(tag)
	if !semver.IsValid(version) || semver.Canonical(version) != version {
		return "", "", fmt.Errorf("%q is not a canonical semantic version", version)
	}
	gomod, err := git(repo, "show", from+":"+filepath.ToSlash(filepath.Join(dir, "go.mod")))
	if err != nil {
		return "", "", err
	}
	path = modfile.ModulePath([]byte(gomod))
	if path == "" {
		return "", "", fmt.Errorf("the go.mod in %q at %s names no module", dir, from)
	}
	if err := module.Check(path, version); err != nil {
		return "", "", err
	}
	when, err := git(repo, "log", "-1", "--format=%ct", from+"^{commit}")
	if err != nil {
		return "", "", err
	}
	var secs int64
	if _, err := fmt.Sscan(when, &secs); err != nil {
		return "", "", fmt.Errorf("commit time %q: %w", when, err)
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, time.Unix(secs, 0).UTC()})
	if err != nil {
		return "", "", err
	}

	vdir, err := versionDir(out, path)
	if err != nil {
		return "", "", err
	}
	base := filepath.Join(vdir, version) // a canonical version needs no escaping
	var zipped bytes.Buffer
	if err := zip.CreateFromVCS(&zipped, module.Version{Path: path, Version: version}, repo, from, dir); err != nil {
		return "", "", err
	}
	for ext, data := range map[string][]byte{".info": info, ".mod": []byte(gomod), ".zip": zipped.Bytes()} {
		if err := os.WriteFile(base+ext, data, 0o644); err != nil {
			return "", "", err
		}
	}
	return path, version, nil
}

// versionDir makes and returns OUT/<escaped module path>/@v.
func versionDir(out, path string) (string, error) {
	escaped, err := module.EscapePath(path)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(out, filepath.FromSlash(escaped), "@v")
	return dir, os.MkdirAll(dir, 0o755)
}

// git runs git in repo and returns what it printed.
func git(repo string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = repo
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}
