package policy

import (
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/hitlbot/hitl"
)

// Risk labels: what an operation, or one part of a command line, does
// that a person should weigh before deciding, in plain words, computed
// from what it does (its program, options, files and hosts), never from
// the rule that decided it. They inform; they never allow anything, and a
// label is written for every reading of a command the friction rules use
// (sudo rm -rf x raises privileges and deletes). Every surface shows the
// same labels, riskiest first (Decision.Risks, Question.Risks).

var riskOrder = []hitl.RiskKind{hitl.RiskRunsFetched, hitl.RiskPrivileges, hitl.RiskSecret, hitl.RiskDeletes, hitl.RiskGitHistory,
	hitl.RiskNotUnderstood, hitl.RiskWritesOutside, hitl.RiskOverwrites, hitl.RiskNetwork}

// riskWords are how each kind is said, before what it names.
var riskWords = map[hitl.RiskKind]string{
	hitl.RiskRunsFetched:   "runs code fetched from the network",
	hitl.RiskPrivileges:    "raises privileges",
	hitl.RiskSecret:        "reads a secret",
	hitl.RiskDeletes:       "deletes files",
	hitl.RiskGitHistory:    "changes git history or refs",
	hitl.RiskNotUnderstood: "not understood",
	hitl.RiskWritesOutside: "writes outside the session's directory",
	hitl.RiskOverwrites:    "writes or overwrites files",
	hitl.RiskNetwork:       "reaches the network",
}

// maxRiskItems bounds what one label names.
const maxRiskItems = 4

// riskSet collects labels: what each kind names, in order of discovery.
type riskSet struct {
	items map[hitl.RiskKind][]string
}

func (r *riskSet) add(k hitl.RiskKind, what string) {
	if r.items == nil {
		r.items = map[hitl.RiskKind][]string{}
	}
	if !slices.Contains(r.items[k], what) {
		r.items[k] = append(r.items[k], what)
	}
}

func (r *riskSet) merge(o *riskSet) {
	for _, k := range riskOrder {
		for _, it := range o.items[k] {
			r.add(k, it)
		}
	}
}

// labels are the collected risks, riskiest first.
func (r *riskSet) labels() []hitl.RiskLabel {
	var out []hitl.RiskLabel
	for _, k := range riskOrder {
		items, ok := r.items[k]
		if !ok {
			continue
		}
		text := riskWords[k]
		var named []string
		for _, it := range items {
			if it != "" {
				named = append(named, it)
			}
		}
		if len(named) > maxRiskItems {
			named = append(named[:maxRiskItems], "…")
		}
		if len(named) > 0 {
			text += ": " + strings.Join(named, ", ")
		}
		out = append(out, hitl.RiskLabel{Kind: k, Text: text})
	}
	return out
}

// Risks labels op for the person deciding it, and each of its parts
// (Decision.Parts, labelled in place): a part the policy could not read
// is "not understood", with why.
func (d Decider) Risks(op hitl.Operation, parts []hitl.DecisionPart) []hitl.RiskLabel {
	var r riskSet
	for _, p := range parts {
		if p.Kind == hitl.PartOpaque {
			r.add(hitl.RiskNotUnderstood, notUnderstood(p))
		}
	}
	switch op.Type {
	case hitl.OpShell:
		perCommand := map[string]*riskSet{}
		if d.Parse != nil {
			d.lineRisks(op, op.Resource, &r, 0, perCommand)
		}
		for i, p := range parts {
			var pr riskSet
			switch p.Kind {
			case hitl.PartCommand, hitl.PartOpaque:
				if c, ok := perCommand[p.Text]; ok {
					pr = *c
				}
				if p.Kind == hitl.PartOpaque {
					pr.add(hitl.RiskNotUnderstood, notUnderstood(p))
				}
			case hitl.PartWrite, hitl.PartRead:
				fp := normalisePath(p.Text, strings.HasPrefix(p.Text, "~"), op.Home)
				switch {
				case fp.network:
					pr.add(hitl.RiskNetwork, fp.value)
				case p.Kind == hitl.PartWrite:
					pr.add(hitl.RiskOverwrites, fp.value)
					d.writeRisks(op, fp.value, &pr)
				default:
					d.readRisks(op, fp.value, &pr)
				}
			}
			parts[i].Risks = pr.labels()
		}
	case hitl.OpFileDelete:
		fp := normalisePath(op.Resource, true, op.Home)
		r.add(hitl.RiskDeletes, fp.value)
		d.writeRisks(op, fp.value, &r)
	case hitl.OpFileWrite:
		fp := normalisePath(op.Resource, true, op.Home)
		for _, df := range op.Diffs {
			p := normalisePath(df.Path, true, op.Home).value
			switch df.Change {
			case hitl.FileModify:
				r.add(hitl.RiskOverwrites, p)
			case hitl.FileDelete:
				r.add(hitl.RiskDeletes, p)
			}
			if df.MovedTo != "" {
				r.add(hitl.RiskDeletes, p+" (moved)")
				d.writeRisks(op, normalisePath(df.MovedTo, true, op.Home).value, &r)
			}
			if p != fp.value {
				d.writeRisks(op, p, &r)
			}
		}
		d.writeRisks(op, fp.value, &r)
	case hitl.OpFileRead:
		d.readRisks(op, normalisePath(op.Resource, true, op.Home).value, &r)
	case hitl.OpAPICall:
		r.add(hitl.RiskNetwork, hostOf(op.Resource))
	default:
		d.inputRisks(op, &r)
	}
	return r.labels()
}

// Field names of a framework tool's input (Operation.Input) that say what
// it does: a path with content is a file written, a URL a host reached, a
// command a command line run.
var (
	pathFields    = set("path", "file_path", "filepath", "filename", "file", "target", "destination", "dest")
	contentFields = set("content", "contents", "text", "data", "body", "new_string", "new_source")
	urlFields     = set("url", "uri", "endpoint", "href")
	commandFields = set("command", "cmd", "shell", "script")
)

// inputRisks labels a framework tool by its input's fields.
func (d Decider) inputRisks(op hitl.Operation, r *riskSet) {
	in := op.Input()
	writes := false
	for _, f := range in {
		writes = writes || contentFields[f.Key]
	}
	for _, f := range in {
		switch {
		case pathFields[f.Key] && f.Value != "":
			p := normalisePath(f.Value, strings.HasPrefix(f.Value, "~"), op.Home).value
			if writes {
				r.add(hitl.RiskOverwrites, p)
				d.writeRisks(op, p, r)
			} else {
				d.readRisks(op, p, r)
			}
		case urlFields[f.Key]:
			if h := hostOf(f.Value); h != "" {
				r.add(hitl.RiskNetwork, h)
			}
		case commandFields[f.Key] && d.Parse != nil:
			d.lineRisks(op, f.Value, r, 0, nil)
		}
	}
}

// notUnderstood says why a part is not understood: its reason, or, when a
// rule's friction replaced the reason, the part itself.
func notUnderstood(p hitl.DecisionPart) string {
	if r, ok := strings.CutPrefix(p.Reason, "not understood"); ok {
		return strings.TrimLeft(r, ": ")
	}
	return p.Text
}

// lineRisks labels what a command line does: each simple command in every
// reading, the files its redirections write and read, and what a shell's
// -c script does. perCommand gets each simple command's own labels, by its
// canonical text (a part's Text).
func (d Decider) lineRisks(op hitl.Operation, line string, r *riskSet, depth int, perCommand map[string]*riskSet) {
	l, err := d.Parse(line)
	if err != nil {
		return
	}
	fetches, runsCode := "", false
	type ran struct {
		own     *riskSet
		fetches string
		runs    bool
	}
	var cmds []ran
	for _, c := range l.Commands {
		own := &riskSet{}
		cr := ran{own: own}
		words := values(append(slices.Clone(c.Assigns), c.Args...))
		for _, s := range readings(words) {
			if f := commandRisks(s, own); len(f) > len(cr.fetches) {
				cr.fetches = f
			}
			// the files its operands name, read generously (operands.go)
			for i, o := range s.operands {
				fp := normalisePath(o, strings.HasPrefix(o, "~"), op.Home)
				for _, t := range operandTypes(s.program, i == len(s.operands)-1 && i > 0) {
					if t == hitl.OpFileRead {
						d.readRisks(op, fp.value, own)
					} else {
						d.writeRisks(op, fp.value, own)
					}
				}
			}
			if shells[s.program] || interpreterRuns(s) || s.program == "eval" || s.program == "source" || s.program == "." {
				cr.runs = true
			}
		}
		if cr.fetches != "" && fetches == "" {
			fetches = cr.fetches
		}
		runsCode = runsCode || cr.runs
		cmds = append(cmds, cr)
		v := understand(c)
		for _, w := range v.writes {
			fp := normalisePath(w.Value, w.Tilde(), op.Home)
			own.add(hitl.RiskOverwrites, fp.value)
			d.writeRisks(op, fp.value, own)
		}
		if script, ok := shellScript(c); ok && depth < 3 {
			d.lineRisks(op, script, own, depth+1, nil)
		}
		if perCommand != nil {
			perCommand[c.Text()] = own
		}
	}
	for _, cr := range cmds {
		// what one command fetches and another runs, in one line
		if fetches != "" && runsCode && (cr.fetches != "" || cr.runs) {
			cr.own.add(hitl.RiskRunsFetched, fetches+", handed to a shell or interpreter")
		}
		r.merge(cr.own)
	}
	for _, w := range l.Writes {
		if w.Literal {
			fp := normalisePath(w.Value, w.Tilde(), op.Home)
			if slices.Contains(terminalFiles, fp.value) {
				continue
			}
			if fp.network {
				r.add(hitl.RiskNetwork, fp.value)
				continue
			}
			r.add(hitl.RiskOverwrites, fp.value)
			d.writeRisks(op, fp.value, r)
		}
	}
	for _, w := range l.Reads {
		if w.Literal {
			fp := normalisePath(w.Value, w.Tilde(), op.Home)
			if fp.network {
				r.add(hitl.RiskNetwork, fp.value)
				continue
			}
			d.readRisks(op, fp.value, r)
		}
	}
}

// interpreterRuns reports whether an interpreter runs a program it is
// handed (a string or standard input) rather than a file.
func interpreterRuns(s spelling) bool {
	if _, ok := interpreters[s.program]; !ok && !strings.HasPrefix(s.program, "python3.") {
		return false
	}
	return interpreterCode(s.program, append(slices.Clone(s.flags), s.operands...)) != "" || len(s.operands) == 0
}

// fetchers download what they are given.
var fetchers = set("curl", "wget", "fetch", "http", "https", "xh", "aria2c", "iwr", "Invoke-WebRequest", "irm", "Invoke-RestMethod")

// installers fetch packages and run their code (install scripts, the
// package's own program).
var installers = map[string][]string{
	"npm": {"install", "i", "ci", "add", "exec", "x", "update", "up"}, "pnpm": {"install", "i", "add", "dlx", "update", "up"},
	"yarn": {"install", "add", "dlx", "up", "upgrade"}, "bun": {"install", "i", "add", "x"},
	"pip": {"install", "download"}, "pip3": {"install", "download"}, "uv": {"add", "sync", "run", "pip", "tool"},
	"pipx": {"install", "run"}, "gem": {"install"}, "cargo": {"install"}, "brew": {"install", "upgrade"},
	"apt": {"install", "upgrade"}, "apt-get": {"install", "upgrade", "dist-upgrade"}, "go": {"install", "get"},
	"npx": nil, "pnpx": nil, "bunx": nil, "uvx": nil,
}

// commandRisks labels one reading of a command; it returns what the
// command fetches from the network, if it is a fetcher ("curl -s http://x").
func commandRisks(s spelling, r *riskSet) (fetches string) {
	ops := s.operands
	sub := ""
	if len(ops) > 0 {
		sub = ops[0]
	}
	has := func(flags ...string) bool {
		for _, f := range flags {
			if slices.Contains(s.flags, f) || slices.ContainsFunc(s.flags, func(g string) bool { return strings.HasPrefix(g, f+"=") }) {
				return true
			}
		}
		return false
	}
	switch s.program {
	case "sudo", "doas", "su", "pkexec", "runuser", "setcap", "nsenter", "visudo", "usermod", "useradd", "passwd", "chpasswd", "setuid":
		r.add(hitl.RiskPrivileges, s.program)
	case "chmod":
		for _, o := range ops {
			if strings.Contains(o, "+s") || strings.Contains(o, "s,") || len(o) == 4 && strings.IndexByte("4567", o[0]) >= 0 && allDigits(o) {
				r.add(hitl.RiskPrivileges, "chmod "+o+" (set-user-id)")
			}
		}
	case "chown", "chgrp":
		if len(ops) > 0 && (strings.HasPrefix(ops[0], "root") || ops[0] == "0" || strings.HasPrefix(ops[0], "0:")) {
			r.add(hitl.RiskPrivileges, s.program+" "+ops[0])
		}
	case "docker", "podman":
		if has("--privileged", "--cap-add", "--pid", "--userns") {
			r.add(hitl.RiskPrivileges, s.program+" --privileged or added capabilities")
		}
		if sub == "run" || sub == "pull" || sub == "push" || sub == "build" {
			r.add(hitl.RiskNetwork, s.program+" "+sub)
		}
	case "rm", "rmdir", "unlink", "shred", "srm":
		for _, o := range ops {
			r.add(hitl.RiskDeletes, o)
		}
		if len(ops) == 0 {
			r.add(hitl.RiskDeletes, "")
		}
	case "find":
		if has("-delete") || slices.Contains(ops, "-delete") {
			r.add(hitl.RiskDeletes, "what find matches")
		}
	case "mv":
		for _, o := range ops[:max(len(ops)-1, 0)] {
			r.add(hitl.RiskDeletes, o+" (moved)")
		}
	case "truncate":
		for _, o := range ops {
			r.add(hitl.RiskOverwrites, o)
		}
	case "git":
		gitRisks(s, sub, ops, has, r)
	case "ssh", "scp", "sftp", "telnet", "nc", "ncat", "netcat", "socat", "ftp", "ping", "dig", "nslookup", "host", "mosh":
		where := ""
		for _, o := range ops {
			if h := hostOf(o); h != "" {
				where = h
				break
			}
		}
		if where == "" && len(ops) > 0 && s.program != "scp" {
			where = ops[0][strings.LastIndexByte(ops[0], '@')+1:]
		}
		r.add(hitl.RiskNetwork, where)
	case "rsync":
		for _, o := range ops {
			if i := strings.IndexByte(o, ':'); i > 0 && !strings.Contains(o[:i], "/") {
				r.add(hitl.RiskNetwork, hostOf(o))
			}
		}
		if has("--delete", "--delete-before", "--delete-after", "--delete-during", "--remove-source-files") {
			r.add(hitl.RiskDeletes, "files rsync removes")
		}
	}
	if fetchers[s.program] {
		where := ""
		for _, o := range append(slices.Clone(ops), s.flags...) {
			if h := hostOf(o); h != "" {
				where = h
				break
			}
		}
		r.add(hitl.RiskNetwork, where)
		fetches = strings.TrimSpace(s.program + " " + where)
	}
	if subs, ok := installers[s.program]; ok && (subs == nil || slices.Contains(subs, sub)) || isPipInstall(s) {
		what := strings.TrimSpace(s.program + " " + sub)
		if subs == nil {
			what = s.program
		}
		r.add(hitl.RiskRunsFetched, what+" (installs packages and runs their code)")
		r.add(hitl.RiskNetwork, "a package registry")
	}
	return fetches
}

// isPipInstall: python -m pip install.
func isPipInstall(s spelling) bool {
	if !strings.HasPrefix(s.program, "python") || !slices.Contains(s.flags, "-m") {
		return false
	}
	return len(s.operands) >= 2 && s.operands[0] == "pip" && s.operands[1] == "install"
}

// gitRisks labels a git command: what rewrites history or moves refs, and
// what reaches a remote.
func gitRisks(s spelling, sub string, ops []string, has func(...string) bool, r *riskSet) {
	what := "git " + sub
	switch sub {
	case "push":
		if has("-f", "--force", "--force-with-lease", "--force-if-includes", "--mirror") || slices.ContainsFunc(ops, func(o string) bool { return strings.HasPrefix(o, "+") }) {
			r.add(hitl.RiskGitHistory, "git push --force (rewrites the remote's history)")
		} else if has("-d", "--delete", "--prune") || slices.ContainsFunc(ops, func(o string) bool { return strings.HasPrefix(o, ":") }) {
			r.add(hitl.RiskGitHistory, "git push --delete (deletes the remote's refs)")
		} else {
			r.add(hitl.RiskGitHistory, "git push (updates the remote's refs)")
		}
		r.add(hitl.RiskNetwork, strings.TrimSpace("git remote "+strings.Join(ops[1:min(len(ops), 2)], "")))
	case "reset":
		if has("--hard", "--keep", "--merge") {
			r.add(hitl.RiskGitHistory, "git reset --hard (moves the branch and discards changes)")
			r.add(hitl.RiskDeletes, "uncommitted changes (git reset --hard)")
		} else if len(ops) > 1 {
			r.add(hitl.RiskGitHistory, what+" (moves the branch)")
		}
	case "rebase", "filter-branch", "filter-repo", "update-ref", "replace":
		r.add(hitl.RiskGitHistory, what)
	case "commit":
		if has("--amend") {
			r.add(hitl.RiskGitHistory, "git commit --amend")
		}
	case "branch":
		if has("-d", "-D", "--delete", "-m", "-M", "--move", "-c", "-C", "--copy", "-f", "--force", "-u", "--set-upstream-to", "--unset-upstream") {
			r.add(hitl.RiskGitHistory, "git branch (deletes, moves or resets a branch)")
		}
	case "tag":
		if has("-d", "--delete", "-f", "--force") {
			r.add(hitl.RiskGitHistory, "git tag (deletes or moves a tag)")
		}
	case "checkout", "switch":
		if has("-B", "-C", "--force-create", "-f", "--force", "--discard-changes") {
			r.add(hitl.RiskGitHistory, what+" (resets a branch or discards changes)")
		}
	case "reflog":
		if len(ops) > 1 && (ops[1] == "expire" || ops[1] == "delete") {
			r.add(hitl.RiskGitHistory, "git reflog "+ops[1])
		}
	case "stash":
		if len(ops) > 1 && (ops[1] == "drop" || ops[1] == "clear") {
			r.add(hitl.RiskGitHistory, "git stash "+ops[1])
		}
	case "gc", "prune":
		if sub == "prune" || has("--prune") {
			r.add(hitl.RiskGitHistory, what+" (removes unreachable commits)")
		}
	case "clean":
		r.add(hitl.RiskDeletes, "untracked files (git clean)")
	case "rm":
		for _, o := range ops[1:] {
			r.add(hitl.RiskDeletes, o)
		}
	case "fetch", "pull", "clone", "ls-remote", "remote", "submodule":
		if sub != "remote" || len(ops) > 1 && (ops[1] == "update" || ops[1] == "prune") {
			r.add(hitl.RiskNetwork, "git "+sub)
		}
	}
}

// writeRisks labels a file written (or deleted): outside the session's
// directory, or a secret's file.
func (d Decider) writeRisks(op hitl.Operation, p string, r *riskSet) {
	if p == "" || slices.Contains(terminalFiles, p) {
		return
	}
	if outsideSession(op, p) {
		r.add(hitl.RiskWritesOutside, p)
	}
}

// outsideSession reports whether p is outside the session's directory
// (Operation.Cwd): a relative path is inside; without a known directory,
// an absolute or home path is outside.
func outsideSession(op hitl.Operation, p string) bool {
	if !path.IsAbs(p) && !strings.HasPrefix(p, "~") {
		return false
	}
	if op.Cwd == "" || !path.IsAbs(op.Cwd) {
		return true
	}
	cwd := path.Clean(op.Cwd)
	return p != cwd && !strings.HasPrefix(p, strings.TrimSuffix(cwd, "/")+"/")
}

// readRisks labels a file read: a secret when a deny or friction rule
// protects it, or when it looks like a key or credential file.
func (d Decider) readRisks(op hitl.Operation, p string, r *riskSet) {
	if p == "" {
		return
	}
	if real, ok := op.Paths[p]; ok {
		p = real
	}
	if secretFile(p) {
		r.add(hitl.RiskSecret, p)
		return
	}
	fop := op
	fop.Type, fop.Resource = hitl.OpFileRead, p
	for _, rule := range d.Rules {
		if rule.AddsFriction() && rule.OpType == hitl.OpFileRead && rule.Resource != "" && RuleMatches(rule, fop) {
			r.add(hitl.RiskSecret, p+" (rule "+rule.Name+" protects it)")
			return
		}
	}
}

// secretNames are files that hold keys or credentials, by base name.
var secretNames = set("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk", ".netrc", "_netrc",
	".pgpass", ".git-credentials", ".npmrc", ".pypirc", ".htpasswd", "credentials", "credentials.json", "shadow", "gshadow",
	"master.key", "secrets.yml", "secrets.yaml", "secrets.json", "kubeconfig", ".vault-token", "token.json")

// secretExts are extensions of key and certificate stores.
var secretExts = set(".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".kdbx", ".gpg", ".asc", ".ppk")

// secretFile reports whether p looks like a key or credential file.
func secretFile(p string) bool {
	base := path.Base(p)
	switch {
	case secretNames[base] || secretExts[path.Ext(base)]:
		return true
	case base == ".env" || strings.HasPrefix(base, ".env.") && !slices.Contains([]string{".env.example", ".env.sample", ".env.template", ".env.dist"}, base):
		return true
	case strings.Contains(p, "/.ssh/") && !strings.HasSuffix(base, ".pub") && base != "known_hosts" && base != "config" && base != "authorized_keys":
		return true
	case strings.HasSuffix(p, "/.aws/credentials") || strings.HasSuffix(p, "/.kube/config") || strings.HasSuffix(p, "/.docker/config.json") || strings.HasSuffix(p, "/.config/gh/hosts.yml"):
		return true
	}
	return false
}

// hostOf is the host a word names, if it is a URL or host:path
// ("https://example.com/x" and "deploy@example.com:a.tar" name
// example.com); "" otherwise.
func hostOf(w string) string {
	if strings.Contains(w, "://") {
		if u, err := url.Parse(w); err == nil && u.Host != "" {
			return u.Hostname()
		}
		return ""
	}
	if i := strings.IndexByte(w, ':'); i > 0 && !strings.Contains(w[:i], "/") && !strings.HasPrefix(w, "-") {
		h := w[:i]
		if at := strings.LastIndexByte(h, '@'); at >= 0 {
			h = h[at+1:]
		}
		return h
	}
	if at := strings.LastIndexByte(w, '@'); at > 0 && !strings.HasPrefix(w, "-") && strings.Contains(w[at:], ".") {
		return w[at+1:]
	}
	return ""
}
