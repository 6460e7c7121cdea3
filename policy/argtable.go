package policy

import "strings"

// The argument table, an allow-list: for the commands teams allow, every
// option the policy models. A rule that allows a command allows it only
// with arguments the table knows to be safe: an option listed under Code,
// Net or Opaque makes the part opaque (never allowed, never learnable); an
// option listed under Write names a file the command writes, decided as a
// file write like a redirection; an option in safeOptions (argsafe.go)
// only changes what is printed; and an option in none of the lists is not
// understood: the part is opaque ("ls: option --foo is not one the policy
// knows; ask"). Commands not in the table are decided by the rules as
// written.
//
// Option spelling in the Code, Net, Opaque and Write lists, matched
// generously: "-o" is a short option, found inside bundles (-no FILE,
// -noFILE); "--output" is a long option, found with =VALUE and by any
// abbreviation GNU getopt and git accept (--out). For a command with
// LongSingleDash (go, find), "-exec" is one option, spelled with one or
// two dashes, never split. Safe options are matched strictly, as the
// program reads its words (argscan.go). docs/shell-policy.md says how to
// extend the table.

// cmdArgs is one command's entry.
type cmdArgs struct {
	Code   []string // run code or another program
	Net    []string // reach the network or another host
	Opaque []string // other effects the policy does not model (many files written, a config read that can run code)
	Write  []string // take a file the command writes
	// Aliases fold spellings for friction matching: long option to short
	// ("--recursive": "-r"), and short to short ("-R": "-r").
	Aliases map[string]string
	// Sub are the subcommands; with Sub set, a subcommand not listed is
	// opaque (git runs aliases and git-NAME programs).
	Sub map[string]cmdArgs
	// Globals are the options before a subcommand that take a value.
	Globals []string
	// LongSingleDash: -name is one option (go, find).
	LongSingleDash bool
	// Anywhere: the command's own options may also follow its
	// subcommand (npm test --script-shell=x).
	Anywhere bool
	// Check decides what the lists cannot: sed scripts, tar modes, tee
	// operands. It returns why the command is opaque, or the files it
	// writes.
	Check func(args []string) (opaque string, writes []string)

	// The rest of the options the command is known to take are its safe
	// options, in safeOptions (argsafe.go); an option in none of the lists
	// makes the part opaque. These say how its words are read:
	Numeric      bool // -NUM is an option (head -5, git log -3, grep -2)
	Literal      bool // no word is an option: each is text it prints or ignores (echo, true)
	OptionsFirst bool // options end at the first operand (printf FORMAT -x prints -x)
	OldStyle     bool // the first word may be a bundle without its dash (tar tvf a.tar)
	OwnOptions   bool // Check reads every option itself and refuses the ones it does not know (sed)
}

// readOnly is an entry for a command with no option that runs code,
// reaches the network or writes a file; numeric is one that also reads
// -NUM as an option; literal one whose words are all text.
var (
	readOnly = cmdArgs{}
	numeric  = cmdArgs{Numeric: true}
	literal  = cmdArgs{Literal: true}
)

// commandArgs is the table, by program base name.
var commandArgs = map[string]cmdArgs{
	// read-only tools
	"ls": readOnly, "cat": readOnly, "head": numeric, "tail": numeric, "echo": literal, "pwd": readOnly,
	"which": readOnly, "wc": readOnly, "grep": numeric, "egrep": numeric, "fgrep": numeric, "jq": readOnly,
	"diff": readOnly, "cut": readOnly, "tr": readOnly, "nl": readOnly, "stat": readOnly, "du": readOnly,
	"df": readOnly, "basename": readOnly, "dirname": readOnly, "realpath": readOnly, "readlink": readOnly,
	"whoami": readOnly, "id": readOnly, "uname": readOnly, "true": literal, "false": literal,
	"cmp": readOnly, "comm": readOnly, "od": readOnly, "rev": readOnly, "seq": numeric, "sha256sum": readOnly,
	"md5sum": readOnly, "sha1sum": readOnly, "printenv": readOnly, "column": readOnly, "paste": readOnly,
	"fold": readOnly, "expand": numeric, "cd": readOnly,
	"printf": {Opaque: []string{"-v"}, OptionsFirst: true},
	"test":   {Check: testCheck, LongSingleDash: true, Numeric: true},
	"[":      {Check: testCheck, LongSingleDash: true, Numeric: true},
	"date":   {Opaque: []string{"-s", "--set"}},
	"file":   {Opaque: []string{"-C", "--compile"}},
	"tree":   {Write: []string{"-o"}},
	"uniq":   {Check: secondOperandWritten},
	"xxd":    {Check: secondOperandWritten, LongSingleDash: true},
	"sort": {Write: []string{"-o", "--output"}, Code: []string{"--compress-program"},
		Opaque: []string{"-T", "--temporary-directory"}},
	"tee": {Check: teeCheck},
	"rg":  {Code: []string{"--pre", "-z", "--search-zip", "--hostname-bin"}},
	"sed": {Check: sedCheck, OwnOptions: true},
	"awk": {Check: always("awk runs a program that can run commands and write files")}, "gawk": {Check: always("gawk runs a program that can run commands and write files")},
	"mawk": {Check: always("mawk runs a program that can run commands and write files")}, "nawk": {Check: always("nawk runs a program that can run commands and write files")},
	"find": {LongSingleDash: true, Code: []string{"-exec", "-execdir", "-ok", "-okdir"}, Opaque: []string{"-delete"},
		Write: []string{"-fprint", "-fprint0", "-fprintf", "-fls"}},
	"tar": {Check: tarCheck, OldStyle: true},
	"make": {Code: []string{"--eval", "-E", "-f", "--file", "--makefile", "-C", "--directory", "-I", "--include-dir"},
		Check: makeCheck},
	"go": {LongSingleDash: true, Code: []string{"-exec", "-toolexec", "-vettool", "-overlay", "-modfile", "-C", "-pgo"},
		Write: []string{"-o", "-coverprofile", "-cpuprofile", "-memprofile", "-blockprofile", "-mutexprofile", "-trace", "-outputdir"},
		Check: goCheck},
	"npm": {Anywhere: true, Code: []string{"--script-shell", "--node-options", "--userconfig", "--globalconfig", "-c", "--call"},
		Sub: map[string]cmdArgs{"test": {}, "t": {}, "run": {}, "run-script": {}, "ci": {}, "install": {}, "i": {}, "ls": {}, "list": {},
			"view": {}, "outdated": {}, "audit": {}, "version": {}, "help": {}, "start": {}, "build": {}, "pack": {}}},
	"yarn": {Anywhere: true, Code: []string{"--script-shell"}, Sub: map[string]cmdArgs{"test": {}, "run": {}, "install": {}, "build": {}, "lint": {},
		"list": {}, "info": {}, "why": {}, "outdated": {}, "audit": {}, "start": {}}},
	"pnpm": {Anywhere: true, Code: []string{"--script-shell"}, Sub: map[string]cmdArgs{"test": {}, "t": {}, "run": {}, "install": {}, "i": {}, "build": {},
		"lint": {}, "list": {}, "ls": {}, "why": {}, "outdated": {}, "audit": {}, "start": {}}},
	"npx":   {Check: always("npx runs a package, which it may fetch from the network")},
	"bunx":  {Check: always("bunx runs a package, which it may fetch from the network")},
	"xargs": {Check: always("xargs runs a command with arguments read when it runs")},
	"curl": {Write: []string{"-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii",
		"--libcurl", "--stderr", "--etag-save", "--hsts", "--alt-svc"},
		Opaque: []string{"-O", "--remote-name", "--remote-name-all", "-J", "--remote-header-name", "-K", "--config",
			"--output-dir", "--create-dirs"}, Check: curlCheck},
	"wget": {Write: []string{"-O", "--output-document", "-o", "--output-file", "-a", "--append-output"},
		Code:   []string{"-e", "--execute", "--use-askpass"},
		Opaque: []string{"-P", "--directory-prefix", "-r", "--recursive", "-m", "--mirror", "-x", "--force-directories", "-i", "--input-file"},
		Check:  wgetCheck},
	"ssh": {Check: always("ssh runs commands on another host (and its -o options run local ones)")},
	"scp": {Check: always("scp copies files to or from another host")},
	"rsync": {Code: []string{"-e", "--rsh", "--rsync-path"}, Opaque: []string{"--daemon", "--config"},
		Write: []string{"--log-file", "--write-batch", "--only-write-batch"}, Check: rsyncCheck},
	"docker": {Globals: []string{"-H", "--host", "-c", "--context", "--config", "-l", "--log-level"},
		Net: []string{"-H", "--host", "-c", "--context"}, Code: []string{"--config"},
		Sub: map[string]cmdArgs{
			"ps": {}, "images": {}, "logs": {}, "inspect": {}, "version": {}, "info": {}, "pull": {}, "stop": {}, "rm": {}, "rmi": {},
			"build": {Write: []string{"-o", "--output", "--iidfile", "--metadata-file"}},
			"run":   dockerRun, "create": dockerRun,
			"save":    {Write: []string{"-o", "--output"}},
			"export":  {Write: []string{"-o", "--output"}},
			"compose": {Check: always("docker compose runs what a compose file says")},
		}},
	"kubectl": {Anywhere: true, Check: kubectlCheck, Globals: []string{"-n", "--namespace", "--context", "--cluster", "--user", "-s", "--server", "--kubeconfig", "--as", "--token"},
		Code: []string{"--kubeconfig", "--exec-command"}, Net: []string{"-s", "--server"},
		Sub: map[string]cmdArgs{"get": {}, "describe": {}, "logs": {}, "explain": {}, "version": {}, "api-resources": {}, "top": {},
			"diff": {}, "apply": {}, "delete": {}, "rollout": {}, "scale": {}, "auth": {}, "events": {}, "wait": {}, "label": {}, "annotate": {},
			"create": {}, "patch": {}, "cluster-info": {},
			"exec": kubectlRuns, "cp": kubectlRuns, "port-forward": kubectlRuns, "proxy": kubectlRuns, "attach": kubectlRuns,
			"run": kubectlRuns, "debug": kubectlRuns, "edit": kubectlRuns, "plugin": kubectlRuns, "config": kubectlRuns}},
	"git":   gitArgs,
	"rm":    {Aliases: map[string]string{"--recursive": "-r", "-R": "-r", "--force": "-f", "--dir": "-d", "--verbose": "-v"}},
	"cp":    {Aliases: map[string]string{"--recursive": "-r", "-R": "-r", "--force": "-f", "--archive": "-a"}},
	"mv":    {Aliases: map[string]string{"--force": "-f"}},
	"chmod": {Aliases: map[string]string{"--recursive": "-R"}},
	"chown": {Aliases: map[string]string{"--recursive": "-R"}},
}

// docker run IMAGE CMD ARGS: options end at the image
var dockerRun = cmdArgs{OptionsFirst: true, Opaque: []string{"-v", "--volume", "--mount", "--privileged", "--pid", "--network", "--net", "--cap-add",
	"--device", "--security-opt", "--userns", "--ipc", "--uts", "--volumes-from", "--env-file", "--cidfile"}}

var kubectlRuns = cmdArgs{Check: always("this kubectl command runs commands, copies files, opens connections or an editor")}

// gitLog is the entry of git's log family: the options that write a file or
// run a program.
var gitLog = cmdArgs{Numeric: true, Write: []string{"--output"}, Code: []string{"--ext-diff", "--textconv", "--show-signature"}, Check: gitFormatCheck}

// gitFormatCheck refuses a format that verifies signatures (%G?, %GS,
// %GK…; %(signature) of for-each-ref): git runs gpg (or gpg.program).
func gitFormatCheck(args []string) (string, []string) {
	for _, a := range args {
		if strings.Contains(a, "%G") || strings.Contains(a, "%(signature") {
			return "git " + a + " verifies signatures, which runs gpg (or the repository's gpg.program)", nil
		}
	}
	return "", nil
}

// gitListCheck refuses git branch NAME and git tag NAME, which create a
// branch or a tag: operands only list with a listing option. (An option
// the table does not know is left to its scan, which refuses it.)
func gitListCheck(name string) func([]string) (string, []string) {
	return func(args []string) (string, []string) {
		for _, a := range args {
			opt, _, _ := strings.Cut(a, "=")
			if _, known := safeSpecs[name][opt]; strings.HasPrefix(a, "-") && !known && !strings.HasPrefix(a, "-n") {
				return "", nil
			}
		}
		return gitListed(args)
	}
}

func gitListed(args []string) (string, []string) {
	ops := operands(args)
	if len(ops) == 0 {
		return "", nil
	}
	for _, a := range args {
		for _, l := range []string{"-l", "--list", "-a", "--all", "-r", "--remotes", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "-n"} {
			if a == l || strings.HasPrefix(a, l+"=") || strings.HasPrefix(l, "-n") && strings.HasPrefix(a, "-n") {
				return "", nil
			}
		}
	}
	return "git branch or tag " + ops[0] + " creates it", nil
}

var gitArgs = cmdArgs{
	Globals: []string{"-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix"},
	Code:    []string{"-c", "--config-env", "--exec-path", "--git-dir", "--work-tree", "-p", "--paginate"},
	Sub: map[string]cmdArgs{
		"status": {}, "log": gitLog, "show": gitLog, "diff": gitLog, "whatchanged": gitLog, "range-diff": gitLog,
		"blame": {}, "branch": {Check: gitListCheck("git branch")}, "tag": {Check: gitListCheck("git tag")}, "rev-parse": {}, "ls-files": {}, "ls-tree": {}, "cat-file": {Code: []string{"--textconv", "--filters"}},
		"describe": {}, "shortlog": {Numeric: true, Check: gitFormatCheck}, "reflog": {Numeric: true, Check: gitFormatCheck}, "stash": {Numeric: true}, "add": {}, "restore": {}, "switch": {}, "checkout": {}, "reset": {},
		"rm": {}, "mv": {}, "merge-base": {}, "name-rev": {}, "count-objects": {}, "version": {}, "rev-list": {Numeric: true, Check: gitFormatCheck}, "for-each-ref": {Check: gitFormatCheck},
		"show-ref": {}, "init": {Code: []string{"--template"}}, "commit": {}, "merge": {}, "cherry-pick": {}, "revert": {},
		"grep":          {Numeric: true, Code: []string{"-O", "--open-files-in-pager"}},
		"format-patch":  {Numeric: true, Write: []string{"-o", "--output-directory", "--output"}},
		"archive":       {Numeric: true, Write: []string{"-o", "--output"}, Net: []string{"--remote", "--exec"}},
		"rebase":        {Code: []string{"-x", "--exec"}},
		"fetch":         {Code: []string{"--upload-pack"}},
		"pull":          {Code: []string{"--upload-pack"}},
		"clone":         {Code: []string{"-u", "--upload-pack", "--template", "-c", "--config"}},
		"ls-remote":     {Code: []string{"--upload-pack"}},
		"push":          {Code: []string{"--receive-pack", "--exec"}, Aliases: map[string]string{"--force": "-f"}},
		"clean":         {Aliases: map[string]string{"--force": "-f"}},
		"remote":        {},
		"submodule":     {Check: always("git submodule can run commands (foreach) and fetch")},
		"bisect":        {Check: always("git bisect run runs commands")},
		"config":        {Check: always("git config can set what git runs (core.pager, aliases, hooks)")},
		"difftool":      {Check: always("git difftool runs a diff program")},
		"mergetool":     {Check: always("git mergetool runs a merge program")},
		"filter-branch": {Check: always("git filter-branch runs commands")},
		"send-email":    {Check: always("git send-email runs commands and sends mail")},
		"help":          {Code: []string{"-w", "--web", "-m", "--man", "-i", "--info"}},
	},
}

func always(why string) func([]string) (string, []string) {
	return func([]string) (string, []string) { return why, nil }
}

// verdict is what the table says of a command's arguments (after its
// name): why it is opaque, or the files its options and operands write.
// An option in the Code, Net or Opaque lists makes it opaque, and so does
// one the entry does not model at all (in none of its lists): the table
// is an allow-list.
func (a cmdArgs) verdict(name string, args []string) (opaque string, writes []string) {
	return a.verdictWithin(name, args, "")
}

// verdictWithin is verdict for a subcommand whose command's own options
// (those of entry outer) may follow it (npm test --silent).
func (a cmdArgs) verdictWithin(name string, args []string, outer string) (opaque string, writes []string) {
	if a.Sub != nil {
		end, unknown := a.scan(name, args, true, "")
		for i := 0; i < end; i++ {
			if why := a.optionVerdict(name, args[i], next(args, i), &writes); why != "" {
				return why, nil
			}
		}
		if unknown != "" {
			return unknown, nil
		}
		if a.Check != nil {
			if why, _ := a.Check(args); why != "" {
				return why, nil
			}
		}
		i := end
		if i < len(args) && args[i] == "--" {
			i++
		}
		if i >= len(args) {
			return "", writes
		}
		sub, ok := a.Sub[args[i]]
		if !ok {
			return name + " " + args[i] + " is not a subcommand the policy knows (it may be an alias or a plugin)", nil
		}
		within := ""
		if a.Anywhere {
			top := a
			top.Sub, top.Check = nil, nil
			var ignored []string
			for j, w := range args[i+1:] {
				if w == "--" {
					break
				}
				if why := top.optionVerdict(name, w, next(args[i+1:], j), &ignored); why != "" {
					return why, nil
				}
			}
			within = name
		}
		why, w := sub.verdictWithin(name+" "+args[i], args[i+1:], within)
		return why, append(writes, w...)
	}
	for i := 0; i < len(args); i++ {
		if args[i] == "--" {
			break
		}
		if why := a.optionVerdict(name, args[i], next(args, i), &writes); why != "" {
			return why, nil
		}
	}
	if a.Check != nil {
		why, w := a.Check(args)
		if why != "" {
			return why, nil
		}
		writes = append(writes, w...)
	}
	if !a.OwnOptions && !a.Literal {
		if _, unknown := a.scan(name, args, a.OptionsFirst, outer); unknown != "" {
			return unknown, nil
		}
	}
	return "", writes
}

func next(args []string, i int) string {
	if i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

// optionVerdict checks one word against the lists.
func (a cmdArgs) optionVerdict(name, arg, nextArg string, writes *[]string) string {
	if !strings.HasPrefix(arg, "-") || arg == "-" {
		return ""
	}
	if strings.HasPrefix(arg, "--") && !a.LongSingleDash {
		// an option spelled in full is that option, never an
		// abbreviation of a longer one (--output is not --output-dir)
		// (and a safe option spelled in full is that option: --text is
		// git's --text, not an abbreviation of --textconv)
		opt, _, _ := strings.Cut(arg, "=")
		if _, ok := safeSpecs[name][opt]; ok {
			return ""
		}
		for _, l := range [][]string{a.Code, a.Net, a.Opaque, a.Write} {
			for _, o := range l {
				if o == opt {
					a = a.only(opt)
				}
			}
		}
	}
	for _, l := range []struct {
		opts []string
		why  string
	}{{a.Code, "runs code or another program"}, {a.Net, "reaches the network or another host"}, {a.Opaque, "has effects the policy does not model"}} {
		for _, o := range l.opts {
			if ok, _ := matchOption(o, arg, nextArg, a.LongSingleDash); ok {
				return name + " " + arg + " " + l.why
			}
		}
	}
	for _, o := range a.Write {
		if ok, v := matchOption(o, arg, nextArg, a.LongSingleDash); ok {
			*writes = append(*writes, v)
		}
	}
	return ""
}

// only is a with each list cut down to the option name.
func (a cmdArgs) only(name string) cmdArgs {
	keep := func(l []string) []string {
		for _, o := range l {
			if o == name {
				return []string{o}
			}
		}
		return nil
	}
	a.Code, a.Net, a.Opaque, a.Write = keep(a.Code), keep(a.Net), keep(a.Opaque), keep(a.Write)
	return a
}

// matchOption reports whether arg spells option spec, and its value
// (after =, the rest of a short bundle, or the next word).
func matchOption(spec, arg, nextArg string, singleDash bool) (bool, string) {
	if singleDash {
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-"), "=")
		if name != strings.TrimLeft(spec, "-") {
			return false, ""
		}
		if hasValue {
			return true, value
		}
		return true, nextArg
	}
	if strings.HasPrefix(spec, "--") {
		if !strings.HasPrefix(arg, "--") {
			return false, ""
		}
		name, value, hasValue := strings.Cut(arg[2:], "=")
		if name == "" || !strings.HasPrefix(spec[2:], name) {
			return false, "" // GNU getopt and git accept any unambiguous abbreviation
		}
		if hasValue {
			return true, value
		}
		return true, nextArg
	}
	if strings.HasPrefix(arg, "--") || len(arg) < 2 {
		return false, ""
	}
	i := strings.IndexByte(arg[1:], spec[1])
	if i < 0 {
		return false, ""
	}
	if rest := arg[i+2:]; rest != "" {
		return true, rest
	}
	return true, nextArg
}

// operands are the words that are not options (up to --, all after it).
func operands(args []string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			out = append(out, a)
		}
	}
	return out
}

func testCheck(args []string) (string, []string) {
	for _, a := range args {
		if a == "-v" || a == "-R" {
			return "test " + a + " evaluates an array subscript", nil
		}
	}
	return "", nil
}

func secondOperandWritten(args []string) (string, []string) {
	if ops := operands(args); len(ops) >= 2 && ops[1] != "-" {
		return "", ops[1:2]
	}
	return "", nil
}

func teeCheck(args []string) (string, []string) {
	var w []string
	for _, o := range operands(args) {
		if o != "-" {
			w = append(w, o)
		}
	}
	return "", w
}

func makeCheck(args []string) (string, []string) {
	for _, o := range operands(args) {
		if strings.Contains(o, "=") {
			return "make " + o + " sets a variable (SHELL=, CC=…), which changes what make runs", nil
		}
	}
	return "", nil
}

func goCheck(args []string) (string, []string) {
	ops := operands(args)
	if len(ops) > 0 && ops[0] == "env" {
		for _, a := range args {
			if a == "-w" || a == "-u" {
				return "go env " + a + " changes go's configuration", nil
			}
		}
	}
	return "", nil
}

func wgetCheck(args []string) (string, []string) {
	for i, a := range args {
		if a == "--spider" {
			return "", nil
		}
		if ok, _ := matchOption("-O", a, next(args, i), false); ok {
			return "", nil
		}
		if ok, _ := matchOption("--output-document", a, next(args, i), false); ok {
			return "", nil
		}
	}
	return "wget saves to a file named by the server (use -O FILE)", nil
}

func rsyncCheck(args []string) (string, []string) {
	ops := operands(args)
	for _, o := range ops {
		if i := strings.IndexByte(o, ':'); i > 0 && !strings.Contains(o[:i], "/") {
			return "rsync " + o + " is on another host", nil
		}
	}
	if len(ops) >= 2 {
		return "", ops[len(ops)-1:]
	}
	return "", nil
}

// tarCheck allows listing (and comparing) an archive: any mode that
// writes files, and options that run programs or reach another host, are
// opaque.
func tarCheck(args []string) (string, []string) {
	writing := "create extract get append update concatenate catenate delete"
	risky := []string{"--checkpoint-action", "--to-command", "--use-compress-program", "--info-script", "--new-volume-script",
		"--rsh-command", "--rmt-command", "--index-file", "--listed-incremental", "--volno-file", "--backup"}
	forceLocal := tarForceLocal(args)
	for i, a := range args {
		if a == "--" {
			break
		}
		bundle := ""
		switch {
		case strings.HasPrefix(a, "--"):
			name, _, _ := strings.Cut(a[2:], "=")
			for _, w := range strings.Fields(writing) {
				if name != "" && strings.HasPrefix(w, name) {
					return "tar --" + w + " writes files", nil
				}
			}
			for _, r := range risky {
				if _, exact := safeSpecs["tar"]["--"+name]; !exact && name != "" && strings.HasPrefix(r[2:], name) {
					return "tar " + r + " runs a program or writes a file", nil
				}
			}
			if name == "file" || strings.HasPrefix(a, "--file=") {
				v, _ := strings.CutPrefix(a, "--file=")
				if !strings.HasPrefix(a, "--file=") {
					v = next(args, i)
				}
				if strings.Contains(v, ":") && !forceLocal {
					return "tar --file " + v + " is on another host", nil
				}
			}
			continue
		case strings.HasPrefix(a, "-") && len(a) > 1:
			bundle = a[1:]
		case i == 0:
			bundle = a // tar tvf x.tar: the first word is a bundle
		default:
			continue
		}
		for j := 0; j < len(bundle); j++ {
			c := bundle[j]
			switch {
			case strings.IndexByte("cxruA", c) >= 0:
				return "tar -" + string(c) + " writes files", nil
			case strings.IndexByte("IFg", c) >= 0:
				return "tar -" + string(c) + " runs a program or writes a file", nil
			case c == 'f':
				v := bundle[j+1:]
				if v == "" || i == 0 && !strings.HasPrefix(a, "-") {
					v = next(args, i)
				}
				if strings.Contains(v, ":") && !forceLocal {
					return "tar -f " + v + " is on another host", nil
				}
				j = len(bundle)
			case strings.IndexByte("CTXbHKLNV", c) >= 0:
				j = len(bundle)
			}
		}
	}
	return "", nil
}

// curlCheck refuses a value that names a file curl reads (-H @FILE,
// -w @FILE, --header=@FILE): what it reads is not an operand the file
// rules see.
func curlCheck(args []string) (string, []string) {
	for _, a := range args {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "@") || strings.Contains(a, "=@") || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "@") {
			return "curl " + a + " reads a file named with @", nil
		}
	}
	return "", nil
}

// kubectlCheck refuses a manifest fetched from the network (-f URL).
func kubectlCheck(args []string) (string, []string) {
	for i, a := range args {
		v := ""
		switch {
		case a == "-f" || a == "--filename":
			v = next(args, i)
		case strings.HasPrefix(a, "--filename="):
			v = strings.TrimPrefix(a, "--filename=")
		case strings.HasPrefix(a, "-f") && !strings.HasPrefix(a, "--"):
			v = strings.TrimPrefix(strings.TrimPrefix(a, "-f"), "=")
		}
		if strings.Contains(v, "://") {
			return "kubectl -f " + v + " fetches a manifest from the network", nil
		}
	}
	return "", nil
}

// tarForceLocal reports whether --force-local is one of tar's options, not
// the value of another (tar -tf host:a.tar --exclude --force-local: it is
// --exclude's pattern, and tar runs rsh for the archive).
func tarForceLocal(args []string) bool {
	const takesValue = "fCTXbHKLNVFgI"
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return false
		case a == "--force-local":
			return true
		case strings.HasPrefix(a, "--"):
			if !strings.Contains(a, "=") && safeSpecs["tar"][a] == valueOption {
				i++ // its value is the next word
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				if strings.IndexByte(takesValue, a[j]) >= 0 {
					if j == len(a)-1 {
						i++ // -f VALUE
					}
					break // -fVALUE
				}
			}
		case i == 0:
			// tar tvf a.tar: each letter that takes a value takes the
			// next word, in order
			skip := 0
			for j := 0; j < len(a); j++ {
				if strings.IndexByte(takesValue, a[j]) >= 0 {
					skip++
				}
			}
			i += skip
		}
	}
	return false
}
