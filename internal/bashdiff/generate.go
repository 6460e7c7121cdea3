package bashdiff

import (
	"math/rand"
	"strings"
)

// The generator writes shell lines from a grammar that reaches every node
// kind mvdan.cc/sh parses (arithmetic, [[ ]], let, declare, expansions
// with operators, extglob, here-documents, loops, functions, coprocesses,
// substitutions, redirections with .., // and ~) around the commands
// teams allow, with the options from the argument table that run code or
// write files. @W is a directory the test's rules let lines write in, @D
// the working directory (~/proj), @H the fake HOME, @P a file no rule lets anything write (the payload's mark).

// Simple are commands a read-only policy allows, as people write them.
var Simple = []string{
	"git status", "git status --short", "git log --oneline -5", "ls", "ls -la src", "ls -la", "cat f", "head -n 2 f", "tail -1 f",
	"grep -rn TODO src", "grep -c one f", "sed -n 1,2p f", "sed -n '1,2p' f", "sed s/one/ONE/ f", "sed -e 's/o/0/g' -e 2d f",
	"echo hi", "echo 'a b'", "printf '%s\\n' x", "wc -l f", "sort f", "sort -r f", "tar -tf a.tar", "tar tvf a.tar",
	"find src -name '*.go'", "find . -type f", "env", "pwd", "test -f f", "[ -f f ]", "true", "diff f f", "make test",
	"jq -n 1", "/bin/ls", "\\ls", "'ls' -1", "env ls", "env git status", "which ls", "tee @W/t.txt", "sort -o @W/s.txt f",
	// the argument table's safe options: values stuck, after =, or the next word; bundles
	"git log --oneline -n 3", "git log -3 --stat", "git status -sb", "ls -1 --color=never src", "head -n2 f", "head --lines=2 f",
	"head -2 f", "grep -rn -e -x f", "grep -A1 -B 1 one f", "sort -k1 -t, f", "wc -lc f", "find . -maxdepth 1 -type f -name f",
	"tar -tvf a.tar", "diff -u f src/a.go", "jq -r -n 1", "printf '%s\\n' -x",
}

// Payloads hide a command or a write inside an allowed-looking command:
// the attack classes the policy must see through.
var Payloads = []string{
	"env -S'touch @P'", "env -S 'touch @P'", "env --split-string='touch @P'", "env FOO=1 touch @P",
	"sed -n '1e touch @P' f", "sed 's/one/touch @P/e' f", "sed -n 'w @P' f", "sed -n '1w @P' f", "sed -i s/a/b/ f", "sed --in-place s/a/b/ f",
	"sed -f /dev/null f", "sed -ne '1e touch @P' f", "sed --expression='1e touch @P' f",
	"tar -tf a.tar --checkpoint=1 --checkpoint-action=exec='touch @P'", "tar -tf a.tar --to-command='touch @P'", "tar -tf a.tar -I 'touch @P'",
	"tar -tf a.tar --use-compress-prog='touch @P'", "tar xf a.tar -C @D/..", "tar -xf a.tar", "tar --extract -f a.tar",
	"make test --eval='$(shell touch @P)'", "make test -E '$(shell touch @P)'", "make test SHELL=/usr/bin/touch", "make -f /dev/null test",
	"go test -exec 'touch @P' ./...", "go test -toolexec 'touch @P' ./...", "go test -o @P ./...", "go test -coverprofile=@P ./...",
	"git log --output=@P", "git log --out=@P", "git -c core.pager='touch @P' log", "git -p log", "git difftool", "git config alias.x '!touch @P'",
	"git --exec-path=@D status", "git fsck", "git submodule foreach 'touch @P'", "git log --ext-diff",
	"rg --pre 'touch @P' TODO src", "find . -name f -delete", "find . -fprint @P", "find . -fprintf @P x", "find . -exec touch @P ';'",
	"find . -execdir touch @P ';'", "find . -ok touch @P ';'", "sort -o @P f", "sort -o@P f", "sort --out=@P f", "sort -ro @P f",
	"sort --compress-program='touch @P' f", "tee @P", "tee -a @P", "xargs touch @P", "awk 'BEGIN{system(\"touch @P\")}'",
	"printf -v 'a[$(touch @P)]' x", "test -v 'a[$(touch @P)]'", "[ -v 'a[$(touch @P)]' ]", "read 'a[$(touch @P)]' <<< x",
	"mapfile -t 'a[$(touch @P)]' < f", "unset 'a[$(touch @P)]'", "declare -n r='a[$(touch @P)]'; r=1", "export 'a[$(touch @P)]'=1",
	"let 'a[$(touch @P)]=1'", "(( a[$(touch @P)] ))", "[[ a -eq 'a[$(touch @P)]' ]]", "[[ -v a[$(touch @P)] ]]",
	"x='$(touch @P)'; echo ${x@P}", "x='a[$(touch @P)]'; echo ${!x}", "echo ${x:=$(touch @P)}", "echo ${x:-$(touch @P)}",
	"ls @(f|$(touch @P))", "ls !(x|$(touch @P))", "echo $((1+$(touch @P)))", "echo $[1]",
	"cat <<EOF\n$(touch @P)\nEOF", "cat <<'EOF'\n$(touch @P)\nEOF", "cat <<< \"$(touch @P)\"", "cat <<< hi",
	"eval 'touch @P'", "source /dev/null", ". /dev/null", "alias ls='touch @P'", "trap 'touch @P' EXIT", "exec touch @P",
	"command touch @P", "command -v ls", "builtin eval 'touch @P'", "enable -n echo", "hash -p /usr/bin/touch ls; ls @P",
	"f() { touch @P; }; f", "function g { touch @P; }; g", "coproc touch @P", "touch @P", "FOO=1 touch @P", "PATH=/x ls",
	"IFS=/ ls", "x=1", "x=(a b)", "a[$(touch @P)]=1", "python3 -c 'open(\"@P\",\"w\")'", "perl -e 'open(F,\">@P\")'",
	"node -e 'x'", "bash -c 'touch @P'", "sh -c 'touch @P'", "ls $(touch @P)", "ls `touch @P`", "ls <(touch @P)",
	"cat >(touch @P)", "ls $HOME", "$CMD", "echo $x", "ls {a,b}", "ls *", "ls ~", "ls ~root", "cat ~/.ssh/id_rsa",
	"if true; then touch @P; fi", "while false; do touch @P; done", "until true; do touch @P; done", "for i in 1; do touch @P; done",
	"for ((i=0;i<1;i++)); do touch @P; done", "case x in x) touch @P;; esac", "select x in a; do break; done < /dev/null",
	"time touch @P", "! touch @P", "(touch @P)", "{ touch @P; }", "ls & touch @P", "ls | touch @P",
	"curl -o @P http://127.0.0.1:9/", "wget -O @P http://127.0.0.1:9/", "cd @D/w && ls", "cd .. && ls",
	"set -- x", "shopt -s nullglob", "getopts a 'a[$(touch @P)]'", "wait -p 'a[$(touch @P)]'",
	"echo a=~", "echo x:~/y", "ls ~+", "ls -- -x", "git status > @W/../pwn.txt", "echo x > @W//../pwn.txt", "ls > @W/./../pwn.txt",
	"sort -o @W/../pwn.txt f", "echo x | tee @W/../pwn.txt", "ls < ~/.ssh/id_rsa", "ls < //@H/.ssh/id_rsa",
	// options the argument table does not model: diff --paginate runs pr
	"diff -l f src/a.go", "diff --paginate f src/a.go", "diff -ul f src/a.go", "ls --frob", "git log --frobnicate",
}

// Redirections: paths cleaned (.., //, .), under ~, the network, and
// descriptors.
var Redirections = []string{
	"> @W/out.txt", ">> @W/out.txt", "> @W/../pwn.txt", "> @W//x.txt", "> @W/./y.txt", "> @W/a/../z.txt", "2> @W/err.txt",
	"&> @W/all.txt", "> @P", "2>/dev/null", "2>&1", ">&2", "> /dev/null", "< f", "< ~/.ssh/id_rsa", "> ~/x", "> ~root/x",
	"> @D/w/../../pwn2.txt", "< /dev/tcp/127.0.0.1/9", "> $OUT", "> @W/$x", ">| @W/c.txt", "<> @W/rw.txt", "{fd}> @W/fd.txt",
	"3> @W/three.txt", ">& @W/dup.txt",
}

var seps = []string{" && ", " || ", "; ", "\n", " | ", " |& "}

// Generate writes one line.
func Generate(r *rand.Rand) string {
	n := 1 + r.Intn(3)
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(seps[r.Intn(len(seps))])
		}
		b.WriteString(item(r, 0))
	}
	return b.String()
}

func item(r *rand.Rand, depth int) string {
	var s string
	switch k := r.Intn(20); {
	case k < 9:
		s = Simple[r.Intn(len(Simple))]
	case k < 15:
		s = Payloads[r.Intn(len(Payloads))]
	case k == 15 && depth < 2:
		s = "(" + item(r, depth+1) + ")"
	case k == 16 && depth < 2:
		s = "{ " + item(r, depth+1) + "; }"
	case k == 17 && depth < 2:
		s = "! " + item(r, depth+1)
	case k == 18 && depth < 2:
		s = "time " + item(r, depth+1)
	default:
		s = Simple[r.Intn(len(Simple))] + " $(" + Simple[r.Intn(len(Simple))] + ")"
	}
	for r.Intn(3) == 0 {
		s += " " + Redirections[r.Intn(len(Redirections))]
	}
	return s
}

// Expand puts the box's paths into a generated line: @W (w/), @D (the
// working directory), @H (HOME), @P (the payload's mark).
func (b Box) Expand(line string) string {
	return strings.NewReplacer("@W", b.Dir+"/w", "@D", b.Dir, "@H", b.Home, "@P", b.Dir+"/PWNED").Replace(line)
}
