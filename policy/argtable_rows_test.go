package policy

import (
	"path"
	"strings"
	"testing"
)

// argRows are the argument table's test rows: a line and what the table
// makes of it: "" (understood, nothing written), "opaque", or the files
// it writes joined by spaces. Every entry of commandArgs has a row
// (TestEveryTableEntryHasARow), and each dangerous option one that fails
// when the option is dropped from the table.
var argRows = []struct{ line, want string }{
	{"ls -la src", ""}, {"cat f", ""}, {"head -n 2 f", ""}, {"tail -1 f", ""}, {"echo hi", ""}, {"pwd", ""}, {"which ls", ""},
	{"wc -l f", ""}, {"grep -rn TODO src", ""}, {"egrep x f", ""}, {"fgrep x f", ""}, {"jq .a f", ""}, {"diff a b", ""},
	{"cut -d: -f1 f", ""}, {"tr a b", ""}, {"nl f", ""}, {"stat f", ""}, {"du -sh .", ""}, {"df -h", ""}, {"basename a/b", ""},
	{"dirname a/b", ""}, {"realpath f", ""}, {"readlink f", ""}, {"whoami", ""}, {"id", ""}, {"uname -a", ""}, {"true", ""},
	{"false", ""}, {"cmp a b", ""}, {"comm a b", ""}, {"od -c f", ""}, {"rev f", ""}, {"seq 3", ""}, {"sha256sum f", ""},
	{"md5sum f", ""}, {"sha1sum f", ""}, {"printenv HOME", ""}, {"column -t f", ""}, {"paste a b", ""}, {"fold f", ""},
	{"expand f", ""}, {"cd src", ""},
	{"printf '%s' x", ""}, {"printf -v x %s y", "opaque"},
	{"test -f f", ""}, {"test -v 'a[0]'", "opaque"}, {"[ -f f ]", ""}, {"[ -v x ]", "opaque"}, {"test -R x", "opaque"},
	{"date +%s", ""}, {"date -s now", "opaque"}, {"date --set=now", "opaque"},
	{"file f", ""}, {"file -C -m m", "opaque"},
	{"tree src", ""}, {"tree -o out src", "out"},
	{"uniq f", ""}, {"uniq f out", "out"}, {"xxd f", ""}, {"xxd -r f out", "out"},
	{"sort -r f", ""}, {"sort -o out f", "out"}, {"sort -ro out f", "out"}, {"sort -oout f", "out"}, {"sort --output=out f", "out"},
	{"sort --out out f", "opaque"}, {"sort --compress-program=gzip f", "opaque"}, {"sort -T /tmp f", "opaque"},
	{"tee a b", "a b"}, {"tee -a a", "a"}, {"tee", ""},
	{"rg TODO src", ""}, {"rg --pre cat x", "opaque"}, {"rg -z x", "opaque"}, {"rg --search-zip x", "opaque"}, {"rg --hostname-bin=x y", "opaque"},
	{"sed -n 1,20p f", ""}, {"sed 's/a/b/g' f", ""}, {"sed -e 1d -e '$d' f", ""}, {"sed -n '/x/p' f", ""}, {"sed 'y/ab/cd/' f", ""},
	{"sed -n '1e id' f", "opaque"}, {"sed 's/a/b/e' f", "opaque"}, {"sed 's/a/b/w out' f", "opaque"}, {"sed -n 'w out' f", "opaque"},
	{"sed 'r /etc/passwd' f", "opaque"}, {"sed -f s.sed f", "opaque"}, {"sed --file=s.sed f", "opaque"}, {"sed -i s/a/b/ f", "f"},
	{"sed --in-place=.bak s/a/b/ f g", "opaque"}, {"sed -ne '1e id' f", "opaque"}, {"sed --expression='1e id' f", "opaque"},
	{"sed --unknown f", "opaque"}, {"sed -x f", "opaque"}, {"sed", "opaque"},
	{"awk '{print}' f", "opaque"}, {"gawk 1 f", "opaque"}, {"mawk 1 f", "opaque"}, {"nawk 1 f", "opaque"},
	{"find . -name '*.go'", ""}, {"find . -exec rm {} ;", "opaque"}, {"find . -execdir rm {} +", "opaque"}, {"find . -ok rm {} ;", "opaque"},
	{"find . -okdir rm {} ;", "opaque"}, {"find . -delete", "opaque"}, {"find . -fprint out", "out"}, {"find . -fprint0 out", "out"},
	{"find . -fprintf out %p", "out"}, {"find . -fls out", "out"},
	{"tar -tf a.tar", ""}, {"tar tvf a.tar", ""}, {"tar -xf a.tar", "opaque"}, {"tar xf a.tar", "opaque"}, {"tar -czf a.tgz d", "opaque"},
	{"tar --extract -f a.tar", "opaque"}, {"tar --ext -f a.tar", "opaque"}, {"tar -tf a.tar --checkpoint-action=exec=id", "opaque"},
	{"tar -tf a.tar --to-command=id", "opaque"}, {"tar -I id -tf a.tar", "opaque"}, {"tar -tf a.tar --use-compress-prog=id", "opaque"},
	{"tar -tf host:a.tar", "opaque"}, {"tar -tf host:a.tar --force-local", ""}, {"tar -tf a.tar -F id", "opaque"}, {"tar -tf a.tar --rsh-command=id", "opaque"},
	{"tar -tf a.tar -g snap", "opaque"},
	{"make test", ""}, {"make test --eval='x'", "opaque"}, {"make -E x test", "opaque"}, {"make -f other test", "opaque"},
	{"make -C dir test", "opaque"}, {"make test SHELL=/bin/x", "opaque"}, {"make -I inc test", "opaque"},
	{"go test ./...", ""}, {"go test -exec x ./...", "opaque"}, {"go test --exec=x ./...", "opaque"}, {"go build -toolexec x", "opaque"},
	{"go vet -vettool=x", "opaque"}, {"go build -o out .", "out"}, {"go test -coverprofile=c.out ./...", "c.out"},
	{"go test -cpuprofile cpu ./...", "cpu"}, {"go env -w GOFLAGS=x", "opaque"}, {"go env GOPATH", ""}, {"go build -overlay o.json", "opaque"},
	{"go build -modfile m", "opaque"}, {"go test -C dir ./...", "opaque"},
	{"npm test", ""}, {"npm run build", ""}, {"npm exec x", "opaque"}, {"npm test --script-shell=x", "opaque"}, {"npm --userconfig x test", "opaque"},
	{"npm x y", "opaque"}, {"yarn test", ""}, {"yarn dlx x", "opaque"}, {"pnpm test", ""}, {"pnpm dlx x", "opaque"}, {"pnpm exec x", "opaque"},
	{"npx x", "opaque"}, {"bunx x", "opaque"}, {"xargs rm", "opaque"},
	{"curl https://x", ""}, {"curl -o out https://x", "out"}, {"curl -sSo out https://x", "out"}, {"curl --output out https://x", "out"},
	{"curl -O https://x/f", "opaque"}, {"curl -K cfg", "opaque"}, {"curl -D h https://x", "h"}, {"curl -c jar https://x", "jar"},
	{"wget -O out https://x", "out"}, {"wget https://x/f", "opaque"}, {"wget --spider https://x", ""}, {"wget -e x https://x", "opaque"},
	{"wget -r https://x", "opaque"}, {"wget -O out -o log https://x", "out log"},
	{"ssh host", "opaque"}, {"scp a host:b", "opaque"},
	{"rsync -a src/ dst/", "dst/"}, {"rsync -e ssh a b", "opaque"}, {"rsync --rsync-path=x a b", "opaque"}, {"rsync a host:b", "opaque"},
	{"rsync --log-file=log a b", "log b"},
	{"docker ps", ""}, {"docker run img", ""}, {"docker run -v /:/h img", "opaque"}, {"docker run --privileged img", "opaque"},
	{"docker -H tcp://x ps", "opaque"}, {"docker build -o out .", "out"}, {"docker save -o out img", "out"}, {"docker compose up", "opaque"},
	{"docker frob", "opaque"}, {"docker create --mount type=bind img", "opaque"}, {"docker export -o out c", "out"},
	{"kubectl get pods", ""}, {"kubectl -n prod get pods", ""}, {"kubectl get pods -o yaml", ""}, {"kubectl exec p -- sh", "opaque"},
	{"kubectl --kubeconfig k get pods", "opaque"}, {"kubectl -s https://x get pods", "opaque"}, {"kubectl cp a p:/b", "opaque"},
	{"kubectl foo", "opaque"}, {"kubectl edit deploy/x", "opaque"}, {"kubectl config use-context x", "opaque"},
	{"kubectl proxy", "opaque"}, {"kubectl plugin list", "opaque"}, {"kubectl attach p", "opaque"}, {"kubectl run x --image=y", "opaque"},
	{"kubectl port-forward p 80", "opaque"}, {"kubectl debug p", "opaque"}, {"kubectl get pods --kubeconfig=k", "opaque"},
	{"git status", ""}, {"git log --oneline -5", ""}, {"git log --output=out", "out"}, {"git log --out=out", "opaque"}, {"git show --output out", "out"},
	{"git diff --ext-diff", "opaque"}, {"git log --textconv", "opaque"}, {"git -c core.pager=x log", "opaque"}, {"git --exec-path=x status", "opaque"},
	{"git -C dir status", ""}, {"git --git-dir=x status", "opaque"}, {"git -p log", "opaque"}, {"git frob", "opaque"},
	{"git grep -O x", "opaque"}, {"git grep --open-files-in-pager=x y", "opaque"}, {"git format-patch -o dir HEAD~1", "dir"},
	{"git archive -o out HEAD", "out"}, {"git archive --remote=x HEAD", "opaque"}, {"git rebase -x id main", "opaque"},
	{"git rebase --exec id main", "opaque"}, {"git fetch --upload-pack=x", "opaque"}, {"git pull --upload-pack=x", "opaque"},
	{"git clone --template=x a b", "opaque"}, {"git clone -u x a", "opaque"}, {"git ls-remote --upload-pack=x o", "opaque"},
	{"git push --receive-pack=x", "opaque"}, {"git push origin main", ""}, {"git submodule foreach id", "opaque"}, {"git bisect run id", "opaque"},
	{"git config core.pager x", "opaque"}, {"git difftool", "opaque"}, {"git mergetool", "opaque"}, {"git filter-branch x", "opaque"},
	{"git send-email x", "opaque"}, {"git help -w log", "opaque"}, {"git help log", ""}, {"git cat-file --textconv HEAD:f", "opaque"},
	{"git init --template=x", "opaque"}, {"git clean -n", ""}, {"git diff", ""}, {"git whatchanged --output=o", "o"}, {"git range-diff --output=o a b", "o"},
	{"rm -rf build", ""}, {"cp -r a b", ""}, {"mv a b", ""}, {"chmod -R 755 d", ""}, {"chown -R u d", ""},
	// the table is an allow-list: an option an entry does not model is
	// opaque, for a plain entry, one with subcommands (before and after
	// the subcommand), a LongSingleDash one and one with a Check
	{"ls --some-new-flag", "opaque"}, {"ls -la --frob src", "opaque"}, {"ls src --frob", "opaque"}, {"ls -lz src", "opaque"},
	{"ls --al", "opaque"}, {"cat --number=1 f", "opaque"}, {"head -n 5 f", ""}, {"head --lines=5 f", ""}, {"head -n5 f", ""},
	{"head -5 f", ""}, {"head -5x f", "opaque"}, {"ls -la --color=auto --group-directories-first src", ""},
	{"grep -rn '--include=*.go' -e -foo src", ""}, {"grep -A 3 -B2 -C1 x f", ""}, {"grep -rnE -m 3 x src", ""}, {"grep -2 x f", ""},
	{"grep --frob x f", "opaque"}, {"grep -e x -Y f", "opaque"}, {"wc -l --frob f", "opaque"},
	{"git log --oneline -n 20", ""}, {"git log --oneline -20", ""}, {"git log --graph --decorate --all --format=%h", ""},
	{"git log --since '2 weeks ago' --author=me -- src", ""}, {"git log -- --frob", ""}, {"git log --frobnicate=x", "opaque"},
	{"git log --oneline=x", "opaque"}, {"git log -Y", "opaque"}, {"git --frob status", "opaque"}, {"git -C dir --no-pager log -3", ""},
	{"git status -sb", ""}, {"git status --frob", "opaque"}, {"git diff --stat --cached HEAD~1", ""}, {"git diff -U0 --no-color", ""},
	{"git branch -a --show-current", ""}, {"git push --frob origin", "opaque"}, {"git push -u origin main", ""},
	{"git show --stat HEAD", ""}, {"git blame -L 1,10 f", ""}, {"git rev-parse --abbrev-ref HEAD", ""}, {"git stash list --frob", "opaque"},
	{"docker ps -a --format '{{.Names}}'", ""}, {"docker ps --frob", "opaque"}, {"docker --frob ps", "opaque"},
	{"docker run --rm -it --name x img sh", ""}, {"docker run --frob img", "opaque"},
	{"npm test --silent", ""}, {"npm test --frob", "opaque"}, {"npm --frob test", "opaque"}, {"npm ci --no-audit", ""},
	{"yarn install --frozen-lockfile", ""}, {"pnpm -r --filter app test", ""}, {"pnpm test --coverage", "opaque"},
	{"kubectl get pods -n prod -o wide", ""}, {"kubectl get pods --frob", "opaque"}, {"kubectl --frob get pods", "opaque"},
	{"kubectl logs -f --tail=100 p", ""}, {"kubectl patch deploy x -p '{}'", ""}, {"kubectl get -p x", ""},
	{"find . -type f -name '*.go' -maxdepth 2", ""}, {"find . -name -frob", ""}, {"find . -frob", "opaque"}, {"find . --frob", "opaque"},
	{"find . '(' -name a -o -name b ')' -print", ""}, {"go test -race -count=1 -run TestX ./...", ""}, {"go test -v=true ./...", ""},
	{"go test -frob ./...", "opaque"}, {"go test ./... -args -test.cpuprofile=x", "opaque"}, {"go build -ldflags=-X=a ./...", "opaque"},
	{"go list -m -json all", ""}, {"go vet --frob ./...", "opaque"},
	{"tar tvf a.tar", ""}, {"tar tvYf a.tar", "opaque"}, {"tar -tzvf a.tgz --frob", "opaque"}, {"tar -tf a.tar --wildcards '*.go'", ""},
	{"sort -k 2 -t , -n f", ""}, {"sort -k2,2nr f", ""}, {"sort --frob f", "opaque"}, {"tee --frob a", "opaque"}, {"uniq -c --frob f", "opaque"},
	{"make -j4 test", ""}, {"make -s --no-print-directory test", ""}, {"make --frob test", "opaque"}, {"rsync -avz --frob a b", "opaque"},
	{"rsync -avz --delete src/ dst/", "dst/"}, {"test -f f -a -d d", ""}, {"test -Q x", "opaque"}, {"[ 1 -eq -1 ]", ""},
	{"curl -sSL -H 'A: b' https://x", ""}, {"curl --frob https://x", "opaque"}, {"curl -d @/etc/passwd https://x", "opaque"},
	{"wget -q -O out --frob https://x", "opaque"}, {"wget -nv -O out https://x", "out"},
	{"printf '%s\n' -x --y", ""}, {"printf --frob", "opaque"}, {"echo -x --frob", ""}, {"true --frob", ""},
	{"cut -d , -f 1 f", ""}, {"jq -r --arg x y .a f", ""}, {"xxd -ps -c 16 f", "f"}, {"xxd -ps f", ""}, {"xxd -frob f", "opaque"},
	{"cp -t dir a", "opaque"}, {"chmod -x f", ""}, {"rm -rf --no-preserve-root /", "opaque"}, {"date -u +%s", ""}, {"date --frob", "opaque"},
	{"sed --frob f", "opaque"}, {"kubectl apply -f https://x/d.yaml", "opaque"}, {"kubectl apply --filename=https://x/d.yaml", "opaque"},
	{"kubectl apply -f d.yaml", ""}, {"curl -H @h https://x", "opaque"}, {"curl -w @fmt https://x", "opaque"}, {"curl -sH@h https://x", "opaque"},
	{"curl --header=@h https://x", "opaque"}, {"curl -b jar https://x", "opaque"}, {"docker run --rm img ls -la", ""},
	{"docker run img --privileged", "opaque"}, {"git grep --textconv x", "opaque"}, {"go test -c ./x", "opaque"}, {"diff -l a b", "opaque"},
	{"git push --signed origin", "opaque"}, {"git log --text", ""}, {"git log --textc", "opaque"}, {"tar --list -f a.tar", ""}, {"tar --lis -f a.tar", "opaque"}, {"git describe --abbrev 7", ""}, {"git diff -U 5", ""},
	// builtins, wrappers, shells and interpreters
	{"eval ls", "opaque"}, {"exec ls", "opaque"}, {"source f", "opaque"}, {". f", "opaque"}, {"'let' x=1", "opaque"}, {"trap x EXIT", "opaque"},
	{"alias a=b", "opaque"}, {"enable -n echo", "opaque"}, {"builtin echo", "opaque"}, {"read x", "opaque"}, {"mapfile a", "opaque"},
	{"readarray a", "opaque"}, {"getopts a b", "opaque"}, {"unset x", "opaque"}, {"hash -p /x ls", "opaque"}, {"shopt -s x", "opaque"},
	{"set -e", "opaque"}, {"wait -p x", "opaque"}, {"command ls", "opaque"}, {"command -v ls", ""}, {"env", ""}, {"env ls", ""},
	{"env -S 'ls -la'", "opaque"}, {"env -Sls", "opaque"}, {"env --split-string=ls", "opaque"}, {"env -i ls", "opaque"}, {"env A=1 ls", "opaque"},
	{"env sort -o out f", "out"}, {"env sed -n '1e id' f", "opaque"}, {"sh -c ls", "opaque"}, {"bash x.sh", "opaque"}, {"sudo ls", "opaque"},
	{"nohup ls", "opaque"}, {"timeout 5 ls", "opaque"}, {"python3 -c x", "opaque"}, {"python3 -Bc x", "opaque"}, {"python3 x.py", ""},
	{"python3", "opaque"}, {"python3.12 -c x", "opaque"}, {"node -e x", "opaque"}, {"node --require=x a.js", "opaque"}, {"node a.js", ""},
	{"perl -ne 'print' f", "opaque"}, {"perl -i -pe x f", "opaque"}, {"perl x.pl", ""}, {"ruby -e x", "opaque"}, {"ruby -rx a.rb", "opaque"},
	// issue 31: signatures run gpg; branch and tag writes
	{"git rev-list --format=%G? HEAD", "opaque"}, {"git tag -d v1", "opaque"}, {"git for-each-ref --format='%(signature)'", "opaque"},
	{"git shortlog --format=%GS", "opaque"}, {"git reflog --format=%GS", "opaque"},
	{"ruby a.rb", ""}, {"x=1", "opaque"}, {"A=1 ls", "opaque"}, {"ls $HOME", "opaque"}, {"ls *", "opaque"}, {"/bin/ls", ""},
}

func TestArgumentTable(t *testing.T) {
	for _, tc := range argRows {
		t.Run(tc.line, func(t *testing.T) {
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
		})
	}
}

// TestEveryTableEntryHasARow: adding a command (or a git, docker, npm or
// kubectl subcommand with options of its own) to the table needs a row.
func TestEveryTableEntryHasARow(t *testing.T) {
	has := func(words ...string) bool {
		for _, r := range argRows {
			f := strings.Fields(r.line)
			if len(f) == 0 || path.Base(f[0]) != words[0] {
				continue
			}
			if len(words) == 1 {
				return true
			}
			for _, w := range f[1:] {
				if w == words[1] {
					return true
				}
			}
		}
		return false
	}
	for name, e := range commandArgs {
		if !has(name) {
			t.Errorf("the argument table's entry %q has no row in argRows", name)
		}
		for sub, se := range e.Sub {
			if (len(se.Code) > 0 || len(se.Write) > 0 || len(se.Net) > 0 || len(se.Opaque) > 0 || se.Check != nil) && !has(name, sub) {
				t.Errorf("the argument table's entry %q %q has no row in argRows", name, sub)
			}
		}
	}
}
