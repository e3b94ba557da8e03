package readme

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

// Link is one link of a Markdown file.
type Link struct {
	Line   int    // its line, from 1
	Target string // what it points at, as written
}

var (
	inlineLink = regexp.MustCompile(`\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)
	refLink    = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*(\S+)`)
	codeSpan   = regexp.MustCompile("`+[^`]*`+")
)

// Links returns the links of a Markdown file, inline ones and reference
// definitions, leaving out what is in code blocks and code spans.
func Links(markdown []byte) []Link {
	var out []Link
	fenced := false
	for i, line := range strings.Split(string(markdown), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		line = codeSpan.ReplaceAllString(line, "")
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			out = append(out, Link{Line: i + 1, Target: m[1]})
		}
		if m := refLink.FindStringSubmatch(line); m != nil {
			out = append(out, Link{Line: i + 1, Target: m[1]})
		}
	}
	return out
}

// Anchors returns the anchors GitHub gives the headings of a Markdown
// file: the heading in lower case, without its punctuation, with hyphens
// for spaces, and -1, -2, ... after a repeated one.
func Anchors(markdown []byte) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(string(markdown), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		heading, ok := strings.CutPrefix(line, "#")
		if fenced || !ok {
			continue
		}
		heading = strings.TrimLeft(heading, "#")
		if heading != "" && heading[0] != ' ' {
			continue // "#tag", not a heading
		}
		slug := Slug(heading)
		if n := seen[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// Slug returns the anchor GitHub makes of a heading's text.
func Slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// CheckLinks checks the relative links of the Markdown file rel, a path
// under the repository's root folder: each must point at a file or folder
// inside the repository and, with a #fragment into a Markdown file, at one
// of its headings. Links with a scheme (https:, mailto:) are not checked.
func CheckLinks(root, rel string) []error {
	md, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return []error{err}
	}
	var errs []error
	for _, l := range Links(md) {
		if err := checkLink(root, rel, md, l.Target); err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: link %s: %v", rel, l.Line, l.Target, err))
		}
	}
	return errs
}

var scheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

func checkLink(root, rel string, md []byte, target string) error {
	if scheme.MatchString(target) || strings.HasPrefix(target, "//") {
		return nil
	}
	file, fragment, _ := strings.Cut(target, "#")
	if strings.HasPrefix(file, "/") {
		return fmt.Errorf("an absolute path: write it relative to %s", rel)
	}
	dest := rel
	if file != "" {
		dest = path.Join(path.Dir(rel), file)
		if dest == ".." || strings.HasPrefix(dest, "../") {
			return fmt.Errorf("points outside the repository")
		}
		info, err := os.Stat(filepath.Join(root, filepath.FromSlash(dest)))
		if err != nil {
			return fmt.Errorf("no such file or folder")
		}
		if fragment == "" {
			return nil
		}
		if info.IsDir() || !strings.HasSuffix(dest, ".md") {
			return nil // GitHub's anchors in code and folders are not headings
		}
		if md, err = os.ReadFile(filepath.Join(root, filepath.FromSlash(dest))); err != nil {
			return err
		}
	}
	if fragment != "" && !Anchors(md)[fragment] {
		return fmt.Errorf("%s has no heading with the anchor #%s", dest, fragment)
	}
	return nil
}
