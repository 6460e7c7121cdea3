package policy

import (
	"strings"
	"testing"
)

// argWriteRows (issue 31): options that write a branch or a tag, formats
// that run gpg, sed -i with a backup suffix and tar's remote archive
// behind an option value leave the safe lists. Each row fails when its
// entry is put back.
var argWriteRows = []struct{ line, want string }{
	{"git branch", ""}, {"git branch -a", ""}, {"git branch --list 'feat/*'", ""}, {"git branch --contains HEAD", ""},
	{"git branch -v --merged main", ""},
	{"git branch -d x", "opaque"}, {"git branch -D x", "opaque"}, {"git branch -m x y", "opaque"}, {"git branch -M y", "opaque"},
	{"git branch -c x y", "opaque"}, {"git branch -C x y", "opaque"}, {"git branch -f x HEAD", "opaque"},
	{"git branch --delete x", "opaque"}, {"git branch --move x y", "opaque"}, {"git branch --copy x y", "opaque"},
	{"git branch --force x", "opaque"}, {"git branch --set-upstream-to=origin/x", "opaque"}, {"git branch -u origin/x", "opaque"},
	{"git branch --unset-upstream", "opaque"}, {"git branch --track x origin/x", "opaque"}, {"git branch --edit-description", "opaque"},
	{"git branch newbranch", "opaque"}, {"git branch -q newbranch", "opaque"},
	{"git tag", ""}, {"git tag -l 'v*'", ""}, {"git tag -n5", ""}, {"git tag v1", "opaque"}, {"git tag -a v1 -m x", "opaque"},
	{"git tag -d v1", "opaque"}, {"git tag -f v1", "opaque"}, {"git tag -s v1", "opaque"},
	{"git log --pretty=%GS", "opaque"}, {"git log --format='%h %G?'", "opaque"}, {"git log --pretty=format:%GK", "opaque"},
	{"git show --show-signature", "opaque"}, {"git for-each-ref --format='%(signature)'", "opaque"},
	{"git log --pretty=%an -3", ""}, {"git log --format=%H", ""},
	{"sed -n -i'/var/*' s/a/b/ f", "opaque"}, {"sed -i.bak s/a/b/ f", "opaque"}, {"sed --in-place=.orig s/a/b/ f", "opaque"},
	{"sed -i s/a/b/ f", "f"}, {"sed --in-place s/a/b/ f", "f"},
	{"tar -tf host:/a.tar --exclude --force-local", "opaque"}, {"tar -tf host:/a.tar --force-local", ""},
	{"tar --exclude=x -tf host:a.tar --force-local", ""}, {"tar -t --file host:a.tar -C --force-local", "opaque"},
	{"tar tf host:a.tar --force-local", ""}, {"tar tfC host:a.tar --force-local", "opaque"},
}

func TestArgumentTableWrites(t *testing.T) {
	for _, tc := range argWriteRows {
		l := mustParseOne(t, tc.line)
		v := understand(l)
		got := ""
		if v.why != "" {
			got = "opaque"
		} else {
			var ws []string
			for _, w := range v.writes {
				ws = append(ws, w.Value)
			}
			got = strings.Join(ws, " ")
		}
		if got != tc.want {
			t.Errorf("%s: got %q (%s), want %q", tc.line, got, v.why, tc.want)
		}
	}
}
