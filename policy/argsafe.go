package policy

// safeOptions are the options each command of the argument table is known
// to take that do none of what its Code, Net, Opaque and Write lists say:
// they change what is printed or selected, not what runs or what is
// written. Keyed by program base name, or "program subcommand". The spec
// syntax is in argscan.go: "-l" a flag, "-n=" takes a value, "-w[=]" a
// value stuck to it only. Anchored on Codex CLI's safe-command list and
// Claude Code's read-only flag table, widened with the everyday options
// of each tool's manual. An option missing here is asked about, never
// allowed: add it (with a row in argtable_rows_test.go) once its manual
// says it only reads.
var safeOptions = map[string]string{
	"ls": `-a -A -b -B -c -C -d -D -f -F -g -G -h -H -i -k -l -L -m -n -N -o -p -q -Q -r -R -s -S -t -u -U -v -x -X -Z -1
		-I= -T= -w= --all --almost-all --author --escape --block-size= --ignore-backups --color[=] --colour[=] --directory
		--dired --classify[=] --file-type --format= --full-time --group-directories-first --no-group --human-readable --si
		--dereference-command-line --dereference-command-line-symlink-to-dir --hide= --hyperlink[=] --indicator-style=
		--inode --ignore= --kibibytes --dereference --numeric-uid-gid --literal --hide-control-chars --show-control-chars
		--quote-name --quoting-style= --reverse --recursive --size --sort= --time= --time-style= --tabsize= --width= --context --zero`,
	"cat":  `-A -b -e -E -n -s -t -T -u -v --show-all --number-nonblank --show-ends --number --squeeze-blank --show-tabs --show-nonprinting`,
	"head": `-c= -n= -q -v -z --bytes= --lines= --quiet --silent --verbose --zero-terminated`,
	"tail": `-c= -n= -f -F -q -s= -v -z --bytes= --lines= --follow[=] --retry --pid= --sleep-interval= --max-unchanged-stats=
		--quiet --silent --verbose --zero-terminated`,
	"echo":  ``,
	"pwd":   `-L -P --logical --physical`,
	"which": `-a -s --all`,
	"wc":    `-c -m -l -L -w --bytes --chars --lines --max-line-length --words --total=`,
	"grep":  grepOptions,
	"egrep": grepOptions,
	"fgrep": grepOptions,
	"jq": `-r -j -a -c -s -n -e -S -C -M -R --raw-output --join-output --ascii-output --compact-output --slurp --null-input
		--exit-status --sort-keys --color-output --monochrome-output --raw-input --tab --indent= --arg= --argjson=
		--slurpfile= --rawfile= --args --jsonargs -f= --from-file= --seq --stream --raw-output0`,
	"diff": `-a -b -B -c -C= -d -D= -e -E -f -F= -i -I= -n -N -p -q -r -s -S= -t -T -u -U= -w -W= -x= -X= -y -Z
		--text --ignore-space-change --ignore-blank-lines --context[=] --minimal --ifdef= --ed --ignore-tab-expansion
		--show-function-line= --ignore-case --ignore-matching-lines= --rcs --new-file --brief --recursive
		--report-identical-files --starting-file= --expand-tabs --initial-tab --unified[=] --ignore-all-space --width=
		--exclude= --exclude-from= --side-by-side --ignore-trailing-space --strip-trailing-cr --color[=] --label=
		--left-column --suppress-common-lines --suppress-blank-empty --normal --no-dereference --from-file= --to-file=
		--unidirectional-new-file --ignore-file-name-case --no-ignore-file-name-case --speed-large-files --horizon-lines=`,
	"cut": `-b= -c= -d= -f= -n -s -z --bytes= --characters= --delimiter= --fields= --complement --only-delimited
		--output-delimiter= --zero-terminated`,
	"tr": `-c -C -d -s -t --complement --delete --squeeze-repeats --truncate-set1`,
	"nl": `-b= -d= -f= -h= -i= -l= -n= -p -s= -v= -w= --body-numbering= --section-delimiter= --footer-numbering=
		--header-numbering= --line-increment= --join-blank-lines= --number-format= --no-renumber --number-separator=
		--starting-line-number= --number-width=`,
	"stat":     `-L -f -c= -t --dereference --file-system --format= --printf= --terse --cached=`,
	"du":       `-0 -a -b -B= -c -d= -D -h -H -k -l -L -m -P -s -S -t= -x -X= --null --all --apparent-size --block-size= --bytes --total --dereference-args --max-depth= --human-readable --inodes --count-links --dereference --no-dereference --separate-dirs --si --summarize --threshold= --time[=] --time-style= --exclude-from= --exclude= --one-file-system`,
	"df":       `-a -B= -h -H -i -k -l -P -t= -T -x= --all --block-size= --human-readable --si --inodes --local --output[=] --portability --total --type= --print-type --exclude-type= --sync --no-sync`,
	"basename": `-a -s= -z --multiple --suffix= --zero`,
	"dirname":  `-z --zero`,
	"realpath": `-e -m -L -P -q -s -z --canonicalize-existing --canonicalize-missing --logical --physical --quiet --relative-to= --relative-base= --strip --no-symlinks --zero`,
	"readlink": `-f -e -m -n -q -s -v -z --canonicalize --canonicalize-existing --canonicalize-missing --no-newline --quiet --silent --verbose --zero`,
	"whoami":   ``,
	"id":       `-a -Z -g -G -n -r -u -z --context --group --groups --name --real --user --zero`,
	"uname":    `-a -s -n -r -v -m -p -i -o --all --kernel-name --nodename --kernel-release --kernel-version --machine --processor --hardware-platform --operating-system`,
	"cmp":      `-b -i= -l -n= -s --print-bytes --ignore-initial= --verbose --bytes= --quiet --silent`,
	"comm":     `-1 -2 -3 -z --check-order --nocheck-order --output-delimiter= --total --zero-terminated`,
	"od": `-A= -j= -N= -S= -t= -v -w[=] -a -b -c -d -f -i -l -o -s -x --address-radix= --endian= --skip-bytes= --read-bytes=
		--strings[=] --format= --output-duplicates --width[=] --traditional`,
	"rev":       ``,
	"seq":       `-f= -s= -w --format= --separator= --equal-width`,
	"sha256sum": checksumOptions, "md5sum": checksumOptions, "sha1sum": checksumOptions,
	"printenv": `-0 --null`,
	"column":   `-t -s= -o= -c= -x -n -e -J -N= -R= -l= -L -d -H= -r= -E= -T= -W= -O= --table --separator= --output-separator= --output-width= --fillrows --table-columns= --table-name= --json --table-right= --table-truncate= --table-wrap= --table-hide= --table-order= --table-noheadings --keep-empty-lines`,
	"paste":    `-d= -s -z --delimiters= --serial --zero-terminated`,
	"fold":     `-b -s -w= --bytes --spaces --width=`,
	"expand":   `-i -t= --initial --tabs=`,
	"cd":       `-L -P -e -@`,
	"printf":   ``,
	// test's operators (one word each; -v and -R are refused by testCheck)
	"test": testOperators, "[": testOperators,
	"date": `-d= -f= -I[=] -R -r= -u --date= --file= --iso-8601[=] --rfc-email --rfc-3339= --reference= --utc --universal --debug --resolution`,
	"file": `-b -c -d -E -e= -F= -h -i -k -l -L -m= -n -N -p -r -s -S -z -Z -0 --brief --checking-printout --exclude= --exclude-quiet= --extension --mime --mime-type --mime-encoding --keep-going --list --dereference --magic-file= --no-dereference --no-buffer --no-pad --preserve-date --raw --special-files --no-sandbox --uncompress --uncompress-noreport --print0 --separator=`,
	"tree": `-a -d -l -f -x -L= -R -P= -I= -u -g -s -h -D -F -q -N -Q -p -t -c -U -v -r -i -A -S -n -C -J -X --gitignore --noreport --dirsfirst --filesfirst --charset= --filelimit= --prune --matchdirs --ignore-case --du --si --inodes --device --sort= --timefmt= --info --fromfile --metafirst --noreport`,
	"uniq": `-c -d -D -f= -i -s= -u -w= -z --count --repeated --all-repeated[=] --skip-fields= --group[=] --ignore-case --skip-chars= --unique --zero-terminated --check-chars=`,
	// xxd reads -name as one option (LongSingleDash)
	"xxd": `-a -autoskip -b -bits -C -capitalize -c= -cols= -E -EBCDIC -e -g= -groupsize= -h -help -i -include -l= -len= -n= -name= -o= -offset= -p -ps -postscript -plain -r -revert -d -R= -s= -seek= -u -v -version`,
	"sort": `-b -d -f -g -i -M -h -n -R -r -V -c -C -k= -m -s -S= -t= -u -z --ignore-leading-blanks --dictionary-order
		--ignore-case --general-numeric-sort --ignore-nonprinting --month-sort --human-numeric-sort --numeric-sort
		--random-sort --reverse --sort= --version-sort --batch-size= --check[=] --debug --key= --merge --stable
		--buffer-size= --field-separator= --unique --zero-terminated --parallel=`,
	"tee": `-a -i -p --append --ignore-interrupts --output-error[=]`,
	"rg": `-A= -B= -C= -a -b -c -d= -e= -E= -F -f= -g= -H -h -I -i -j= -l -L -M= -m= -N -n -o -P -p -q -r= -S -s -t= -T= -U
		-u -v -V -w -x -0 --after-context= --before-context= --context= --text --byte-offset --count --count-matches
		--max-depth= --regexp= --encoding= --fixed-strings --file= --glob= --iglob= --glob-case-insensitive --hidden
		--no-filename --with-filename --help --no-ignore --no-ignore-vcs --no-ignore-dot --no-ignore-parent
		--no-ignore-global --no-ignore-exclude --no-ignore-files --ignore-case --case-sensitive --smart-case
		--threads= --files-with-matches --files-without-match --follow --max-columns= --max-columns-preview --max-count=
		--max-filesize= --no-line-number --line-number --only-matching --pcre2 --pretty --quiet --replace= --type=
		--type-not= --type-list --multiline --multiline-dotall --unrestricted --invert-match --version --word-regexp
		--line-regexp --null --null-data --files --heading --no-heading --color= --colors= --column --no-column --json
		--no-messages --no-config --sort= --sortr= --stats --trim --vimgrep --line-buffered --block-buffered
		--passthru --crlf --engine= --field-context-separator= --field-match-separator= --path-separator= --no-unicode
		--one-file-system --binary --no-binary --ignore-file-case-insensitive --include-zero --no-require-git`,
	"find": `-H -L -P -D= -O= -name= -iname= -path= -ipath= -wholename= -iwholename= -regex= -iregex= -regextype= -lname= -ilname=
		-type= -xtype= -size= -empty -newer= -anewer= -cnewer= -newermt= -newerct= -neweram= -newermm= -mtime= -mmin= -atime=
		-amin= -ctime= -cmin= -used= -perm= -user= -group= -uid= -gid= -nouser -nogroup -links= -inum= -samefile= -fstype=
		-readable -writable -executable -maxdepth= -mindepth= -depth -d -xdev -mount -follow -noleaf -ignore_readdir_race
		-noignore_readdir_race -daystart -warn -nowarn -print -print0 -printf= -ls -prune -quit -true -false -not -a -and -o -or
		-context= -help -version`,
	"tar": `-t -v -f= -z -j -J -a -C= -T= -X= -b= -H= -O -d -w -k -B -i -m -p -S -W -R --list --diff --compare --verbose --file=
		--gzip --gunzip --ungzip --bzip2 --xz --lzma --lzip --lzop --zstd --auto-compress --directory= --files-from= --exclude=
		--exclude-from= --exclude-vcs --exclude-vcs-ignores --exclude-caches --wildcards --no-wildcards --anchored
		--no-anchored --ignore-case --no-ignore-case --strip-components= --blocking-factor= --format= --numeric-owner
		--force-local --occurrence[=] --totals[=] --show-transformed-names --show-stored-names --null --no-null --utc
		--full-time --block-number --quiet --verify --to-stdout --ignore-zeros --read-full-records --sparse --label= --quoting-style=
		--no-recursion --recursion --one-file-system --check-links --warning= --record-size= --multi-volume`,
	"make": `-s -k -n -i -j[=] -l[=] -w -B -d -r -R -q -S -O[=] --silent --quiet --keep-going --no-keep-going --dry-run
		--just-print --recon --ignore-errors --jobs[=] --load-average[=] --max-load[=] --print-directory --no-print-directory
		--always-make --debug[=] --no-builtin-rules --no-builtin-variables --warn-undefined-variables --output-sync[=]
		--question --stop --trace --no-silent`,
	// go's flags for build, test, vet, list, mod, env, doc, version,
	// fmt, get, clean (LongSingleDash; -ldflags and -gcflags hand text to
	// the linker and the compiler, which can run programs, and test -c
	// writes a binary where no option says: not modelled)
	"go": `-a -n -p= -race -msan -asan -cover -covermode= -coverpkg= -v -work -x -buildmode= -buildvcs= -compiler= -mod=
		-modcacherw -tags= -trimpath -installsuffix= -linkshared -count= -run= -skip= -bench= -benchtime= -benchmem
		-timeout= -short -failfast -fullpath -json -list= -parallel= -shuffle= -cpu= -fuzz= -fuzztime= -fuzzminimizetime=
		-vet= -m -u -f= -e -deps -test -find -export -compiled -retracted -versions -reuse= -all -src -cmd -changed
		-t -d -l -diff -go= -compat= -cache -testcache -modcache -fuzzcache -i -r -fix -json -vendor -sync`,
	"npm": `-s -q -d -a -l -g -D -S -E -w= --silent --quiet --loglevel= --json --workspace= --workspaces --include-workspace-root
		--if-present --no-audit --no-fund --prefer-offline --offline --ignore-scripts --dry-run --omit= --include=
		--legacy-peer-deps --all --long --depth= --parseable --save --save-dev --save-exact --no-save --global
		--color[=] --no-color --verbose --production`,
	"yarn": `-s --silent --verbose --json --frozen-lockfile --pure-lockfile --immutable --prefer-offline --offline --ignore-scripts
		--production --no-progress --non-interactive --dev -D --exact -E --depth=`,
	"pnpm": `-s -r -w -D -P -F= --silent --recursive --workspace-root --filter= --frozen-lockfile --prefer-offline --offline
		--ignore-scripts --json --if-present --parallel --stream --dev --prod --production --depth= --reporter= --long --no-optional`,
	// curl: -d, -F, -T, -b and -K read files (and send them) where no
	// operand says; an @FILE value anywhere is refused by curlCheck
	"curl": `-s -S -L -f -i -I -v -k -G -X= -H= -A= -e= -m= -u= -w= -r= -z= --silent --show-error --location --fail
		--fail-with-body --include --head --verbose --insecure --get --request= --header= --user-agent= --referer=
		--max-time= --connect-timeout= --retry= --retry-delay= --retry-max-time= --retry-all-errors --user= --write-out=
		--range= --time-cond= --compressed --http1.0 --http1.1 --http2 --http3 --ipv4 --ipv6 -4 -6 --url=
		--data-raw= --max-redirs= --no-progress-meter --progress-bar --fail-early --no-buffer -N --globoff -g --raw
		--tlsv1.2 --tlsv1.3 --location-trusted --proto= --proto-redir= --resolve= --noproxy=`,
	"wget": `-q -v -n= -S -t= -T= -U= -c --quiet --verbose --no-verbose --server-response --spider --tries= --timeout=
		--user-agent= --header= --no-check-certificate --method= --post-data= --body-data= --max-redirect= --continue
		--no-cache --https-only --content-on-error --progress=`,
	"rsync": `-a -v -q -z -r -l -p -t -g -o -D -h -n -P -u -c -i -H -A -X -x -R -W -S -L -k -K -E -m --archive --verbose
		--quiet --compress --recursive --links --perms --times --group --owner --devices --specials --human-readable
		--dry-run --progress --partial --update --checksum --itemize-changes --stats --hard-links --acls --xattrs
		--one-file-system --relative --whole-file --sparse --copy-links --delete --exclude= --include= --exclude-from=
		--include-from= --omit-dir-times --no-perms --no-owner --no-group --size-only --ignore-existing --existing
		--prune-empty-dirs --info= --bwlimit= --timeout= --chmod= --max-size= --min-size=`,
	// docker's own options before the subcommand (-H, --context, --config
	// take values and are in Globals)
	"docker":         `-D --debug --tls --tlsverify -v --version`,
	"docker ps":      `-a -q -s -n= -l -f= --all --quiet --size --last= --latest --filter= --format= --no-trunc`,
	"docker images":  `-a -q -f= --all --quiet --filter= --format= --digests --no-trunc --tree`,
	"docker logs":    `-f -t -n= --follow --timestamps --tail= --since= --until= --details`,
	"docker inspect": `-f= -s --format= --size --type=`,
	"docker version": `-f= --format=`,
	"docker info":    `-f= --format=`,
	"docker pull":    `-q -a --quiet --all-tags --platform= --disable-content-trust`,
	"docker stop":    `-t= -s= --time= --signal=`,
	"docker rm":      `-f -v -l --force --volumes --link`,
	"docker rmi":     `-f --force --no-prune`,
	"docker build": `-t= -f= -q --tag= --file= --build-arg= --target= --no-cache --pull --quiet --platform= --label=
		--progress= --cache-from= --load --rm --force-rm --squash`,
	"docker run": dockerRunOptions, "docker create": dockerRunOptions,
	"docker save":   ``,
	"docker export": ``,
	// kubectl's options, before or after the subcommand (Anywhere)
	"kubectl": `-A -o= -l= -w -f= -R -L= -c= -p -v= --all-namespaces --output= --selector= --watch --watch-only --filename=
		--recursive --label-columns= --container= --previous --v= --request-timeout= --field-selector= --show-labels
		--sort-by= --no-headers --tail= --since= --since-time= --timestamps --all-containers --prefix --follow
		--replicas= --for= --timeout= --dry-run[=] --server-side --overwrite --type= --image= --grace-period= --force
		--now --wait[=] --cascade[=] --ignore-not-found --all --chunk-size= --show-kind --show-managed-fields
		--containers --use-protocol-buffers --revision= --to-revision= --record --validate[=] --field-manager= --ignore-daemonsets --delete-emptydir-data`,
	"kubectl patch": `-p= --patch= --patch-file=`,
	// file commands: their operands are decided by the file rules
	// (operands.go); -t DIR and --backup write where operands do not say
	"rm": `-r -R -f -i -I -d -v --recursive --force --interactive[=] --dir --verbose --one-file-system --preserve-root[=]`,
	"cp": `-a -d -f -i -H -l -L -n -P -p -R -r -s -T -u -v -x --archive --force --interactive --link --dereference --no-clobber
		--no-dereference --preserve[=] --no-preserve= --parents --recursive --symbolic-link --no-target-directory --update[=]
		--verbose --one-file-system --sparse= --reflink[=] --attributes-only --strip-trailing-slashes`,
	"mv": `-f -i -n -T -u -v --force --interactive --no-clobber --no-target-directory --update[=] --verbose --strip-trailing-slashes`,
	// chmod -x f: a mode that starts with - reads as options r w x X s t
	"chmod":           `-R -v -c -f -r -w -x -X -s -t --recursive --verbose --changes --silent --quiet --reference= --preserve-root`,
	"chown":           `-R -v -c -f -h -H -L -P --recursive --verbose --changes --silent --quiet --no-dereference --dereference --from= --reference= --preserve-root`,
	"git":             `-P --no-pager --bare --no-replace-objects --literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs --no-optional-locks --no-advice --version`,
	"git status":      `-s -b -v -u[=] -z --short --branch --show-stash --porcelain[=] --long --verbose --untracked-files[=] --ignored[=] --ignore-submodules[=] --column[=] --no-column --ahead-behind --no-ahead-behind --renames --no-renames --find-renames[=]`,
	"git log":         gitLogOptions,
	"git show":        gitLogOptions,
	"git diff":        gitLogOptions,
	"git whatchanged": gitLogOptions,
	"git range-diff":  gitLogOptions + ` --creation-factor= --no-dual-color --left-only --right-only`,
	"git blame": `-b -l -t -s -n -f -e -w -c -p -L= -S= -M[=] -C[=] --root --show-stats --score-debug --show-name --show-number
		--porcelain --line-porcelain --incremental --show-email --date= --abbrev[=] --since= --first-parent --ignore-rev=
		--ignore-revs-file= --color-lines --color-by-age --contents= --progress --no-progress --encoding=`,
	// git branch and git tag list: the options that delete, move, copy,
	// force or set upstream a branch, or create, sign or delete a tag,
	// are asked about (and an operand without a listing option creates
	// one: gitListCheck)
	"git branch": `-a -r -l -v -i --all --remotes --list --verbose --show-current --merged[=]
		--no-merged[=] --contains[=] --no-contains[=] --points-at= --sort= --format= --color[=] --no-color --column[=] --no-column
		--ignore-case --abbrev[=] --no-abbrev -q --quiet`,
	"git tag": `-l -n[=] -i --list --sort= --format= --contains[=] --no-contains[=] --merged[=] --no-merged[=]
		--points-at[=] --column[=] --no-column --ignore-case --color[=]`,
	"git rev-parse": `-q --abbrev-ref[=] --short[=] --verify --quiet --show-toplevel --git-dir --git-common-dir --absolute-git-dir
		--show-cdup --show-prefix --is-inside-work-tree --is-bare-repository --is-inside-git-dir --is-shallow-repository
		--symbolic-full-name --symbolic --all --branches[=] --tags[=] --remotes[=] --show-superproject-working-tree --sq
		--sq-quote --default= --prefix= --local-env-vars --path-format= --git-path= --show-object-format[=] --show-ref-format
		--since= --until= --after= --before= --not --revs-only --no-revs --flags --no-flags --disambiguate=`,
	"git ls-files": `-c -d -m -o -i -s -u -k -z -t -v -f --cached --deleted --modified --others --ignored --stage --unmerged
		--killed --exclude= -x= --exclude-from= -X= --exclude-per-directory= --exclude-standard --error-unmatch --full-name
		--recurse-submodules --abbrev[=] --eol --deduplicate --directory --no-empty-directory --format= --sparse --with-tree=`,
	"git ls-tree":       `-r -t -d -l -z --long --name-only --name-status --object-only --full-name --full-tree --abbrev[=] --format=`,
	"git cat-file":      `-t -s -e -p -Z --batch[=] --batch-check[=] --batch-command[=] --batch-all-objects --follow-symlinks --unordered --buffer --allow-unknown-type`,
	"git describe":      `--tags --all --long --abbrev[=] --always --dirty[=] --broken[=] --exact-match --match= --exclude= --first-parent --contains --candidates=`,
	"git shortlog":      gitLogOptions + ` -s -n -e -w[=] --summary --numbered --email --committer --group=`,
	"git reflog":        gitLogOptions,
	"git stash":         gitLogOptions + ` -u -a -k -q -m= -S --include-untracked --all --keep-index --no-keep-index --quiet --message= --index --staged`,
	"git add":           `-A -u -n -v -f -N --all --update --dry-run --verbose --force --intent-to-add --ignore-errors --ignore-removal --no-all --chmod= --renormalize --sparse --pathspec-from-file= --pathspec-file-nul`,
	"git restore":       `-s= -S -W -m -q --source= --staged --worktree --ours --theirs --merge --conflict= --quiet --ignore-unmerged --overlay --no-overlay --pathspec-from-file= --pathspec-file-nul`,
	"git switch":        `-c= -C= -d -f -m -q -t --create= --force-create= --detach --guess --no-guess --force --discard-changes --merge --conflict= --quiet --track[=] --no-track --orphan= --ignore-other-worktrees`,
	"git checkout":      `-b= -B= -f -m -q -t --quiet --force --merge --detach --track[=] --no-track --orphan= --ours --theirs --conflict= --overlay --no-overlay --pathspec-from-file= --pathspec-file-nul --guess --no-guess`,
	"git reset":         `-q -N --soft --mixed --hard --merge --keep --quiet --intent-to-add --no-refresh --pathspec-from-file= --pathspec-file-nul`,
	"git rm":            `-r -f -n -q --force --cached --dry-run --quiet --ignore-unmatch --sparse --pathspec-from-file= --pathspec-file-nul`,
	"git mv":            `-f -k -n -v --force --dry-run --verbose`,
	"git merge-base":    `-a --all --octopus --independent --is-ancestor --fork-point`,
	"git name-rev":      `--tags --refs= --exclude= --all --annotate-stdin --name-only --no-undefined --always`,
	"git count-objects": `-v -H --verbose --human-readable`,
	"git version":       `--build-options`,
	"git rev-list":      gitLogOptions + ` --count --objects --objects-edge --no-object-names --timestamp --header --parents --children --quiet`,
	"git for-each-ref":  `--format= --sort= --count= --points-at= --merged[=] --no-merged[=] --contains[=] --no-contains[=] --shell --perl --python --tcl --ignore-case --omit-empty --color[=] --exclude= --include-root-refs`,
	"git show-ref":      `-d -s -q --head --heads --tags --branches --verify --exists --dereference --hash[=] --abbrev[=] --quiet --exclude-existing[=]`,
	"git init":          `-q -b= --quiet --bare --initial-branch= --shared[=] --object-format= --ref-format=`,
	"git commit": `-a -m= -q -v -s -n -F= -C= -o -i -u[=] --all --message= --quiet --verbose --amend --no-edit --allow-empty
		--allow-empty-message --signoff --no-signoff --no-verify --verify --file= --reuse-message= --fixup= --squash=
		--author= --date= --only --include --dry-run --short --porcelain --long --status --no-status --untracked-files[=]
		--cleanup= --reset-author -z --null`,
	"git merge": `-n -q -v -m= -F= --no-ff --ff --ff-only --squash --no-squash --edit --no-edit --message= --file= --quiet --verbose
		--abort --continue --quit --stat --no-stat --no-commit --commit --allow-unrelated-histories --log[=] --no-log
		--autostash --no-autostash --no-verify --into-name= --progress --no-progress --signoff --no-signoff --no-rerere-autoupdate --rerere-autoupdate`,
	"git cherry-pick": `-n -x -m= -s --no-commit --mainline= --signoff --ff --allow-empty --allow-empty-message --keep-redundant-commits --empty= --abort --continue --skip --quit --no-edit --no-rerere-autoupdate --rerere-autoupdate`,
	"git revert":      `-n -m= -s --no-commit --no-edit --mainline= --signoff --abort --continue --skip --quit --no-rerere-autoupdate --rerere-autoupdate`,
	"git grep": `-a -c -E -e= -F -f= -G -h -H -i -I -l -L -m= -n -o -p -P -q -r -v -w -W -z -A= -B= -C= --text --count
		--extended-regexp --fixed-strings --basic-regexp --perl-regexp --line-number --column --ignore-case --files-with-matches
		--name-only --files-without-match --word-regexp --invert-match --full-name --heading --break --all-match --and --or
		--not --max-depth= --max-count= --color[=] --no-color --threads= --only-matching --quiet --cached --untracked
		--no-index --exclude-standard --no-exclude-standard --recurse-submodules --recursive --no-recursive --show-function
		--function-context --after-context= --before-context= --context= --null`,
	"git format-patch": gitLogOptions + ` -k -N --numbered --no-numbered --stdout --subject-prefix= --cover-letter --no-cover-letter
		-v= --reroll-count= --thread[=] --no-thread --base= --zero-commit --start-number= --numbered-files --suffix=
		--rfc[=] --from[=] --to= --cc= --in-reply-to= --keep-subject --no-signature --signature= --cover-from-description=`,
	"git archive": `-l -v --list --verbose --format= --prefix= --worktree-attributes --add-file= --add-virtual-file= --mtime=`,
	"git rebase": `-q -v -n -f -r --onto= --continue --abort --skip --quit --autosquash --no-autosquash --autostash --no-autostash
		--root --quiet --verbose --stat --no-stat --keep-base --update-refs --no-update-refs --rebase-merges[=]
		--no-rebase-merges --fork-point --no-fork-point --committer-date-is-author-date --reset-author-date --ignore-date
		--signoff --force-rebase --no-ff --empty= --keep-empty --no-keep-empty --reapply-cherry-picks --no-reapply-cherry-picks
		--no-verify --verify --apply --merge -m --whitespace= -C=`,
	"git fetch": fetchOptions,
	"git pull": fetchOptions + ` -r --rebase[=] --no-rebase --ff --ff-only --no-ff --autostash --no-autostash --squash --no-squash
		--commit --no-commit --edit --no-edit --stat --no-stat -n --log[=] --no-log --signoff --no-signoff --allow-unrelated-histories`,
	"git clone": `-q -v -n -b= -o= -l -s --quiet --verbose --progress --no-progress --depth= --branch= --origin= --single-branch
		--no-single-branch --no-checkout --bare --mirror --filter= --sparse --no-tags --tags --shallow-since= --shallow-exclude=
		--also-filter-submodules --local --no-local --no-hardlinks --shared --reject-shallow --no-reject-shallow`,
	"git ls-remote": `-h -t -b -q --heads --tags --branches --refs --quiet --exit-code --get-url --sort= --symref`,
	"git push": `-u -f -n -q -v -d -o= --set-upstream --force --force-with-lease[=] --no-force-with-lease --force-if-includes
		--tags --follow-tags --no-follow-tags --all --branches --delete --dry-run --quiet --verbose --porcelain --atomic
		--no-atomic --no-verify --verify --prune --progress --no-progress --push-option= --thin --no-thin`,
	"git clean":  `-n -f -d -x -X -q -e= --dry-run --force --quiet --exclude=`,
	"git remote": `-v -f -t= -m= --verbose --tags --no-tags --mirror[=] --push --add --delete --dry-run -n`,
	"git help":   `-a -g --all --guides --no-external-commands --no-aliases --config --user-interfaces --developer-interfaces`,
}

const grepOptions = `-a -b -c -D= -d= -E -e= -F -f= -G -H -h -I -i -L -l -m= -n -o -P -q -R -r -s -T -U -u -V -v -w -x -y -Z -z
	-A= -B= -C= --after-context= --before-context= --context= --text --byte-offset --count --devices= --directories=
	--extended-regexp --regexp= --fixed-strings --file= --basic-regexp --with-filename --no-filename --binary-files=
	--ignore-case --no-ignore-case --files-without-match --files-with-matches --max-count= --line-number --no-line-number
	--only-matching --quiet --silent --recursive --dereference-recursive --no-messages --initial-tab --binary
	--invert-match --word-regexp --line-regexp --null --null-data --perl-regexp --label= --line-buffered --include=
	--exclude= --exclude-dir= --exclude-from= --color[=] --colour[=]`

const checksumOptions = `-b -c -t -w -z --binary --check --tag --text --zero --ignore-missing --quiet --status --strict --warn`

const testOperators = `-a -b -c -d -e -f -g -G -h -k -L -n -N -o -O -p -r -s -S -t -u -w -x -z -eq -ne -lt -le -gt -ge -ef -nt -ot`

const dockerRunOptions = `-i -t -d -P -a= -e= -h= -l= -m= -p= -u= -w= --rm --interactive --tty --detach --name= --env= --publish=
	--publish-all --workdir= --entrypoint= --user= --platform= --pull= --init --label= --hostname= --memory= --cpus=
	--restart= --read-only --tmpfs= --attach= --add-host= --expose= --stop-signal= --stop-timeout= --quiet -q`

const fetchOptions = `-a -p -P -t -q -v -f -j= --all --prune --prune-tags --tags --no-tags --quiet --verbose --depth= --deepen=
	--shallow-since= --shallow-exclude= --unshallow --dry-run --force --atomic --jobs= --multiple --progress --no-progress
	--filter= --no-write-fetch-head --write-fetch-head --append --keep --update-shallow --porcelain`

const gitLogOptions = `-p -u -s -z -R -a -w -b -W -D -l= -O= -S= -G= -U[=] -M[=] -C[=] -B[=] -n= -i -E -F -g -m -c -L= --patch
	--no-patch --stat[=] --numstat --shortstat --name-only --name-status --summary --dirstat[=] --patch-with-stat
	--patch-with-raw --raw --compact-summary --stat-width= --stat-name-width= --stat-count= --color[=] --no-color
	--word-diff[=] --word-diff-regex= --color-words[=] --color-moved[=] --no-color-moved --no-renames --find-renames[=]
	--find-copies[=] --find-copies-harder --break-rewrites[=] --irreversible-delete --full-index --binary --abbrev[=]
	--no-abbrev --check --exit-code --quiet --cached --staged --merge-base --no-index --relative[=] --no-relative
	--diff-filter= --text --ignore-space-at-eol --ignore-space-change --ignore-all-space --ignore-blank-lines
	--ignore-cr-at-eol --ignore-matching-lines= --unified[=] --inter-hunk-context= --function-context --minimal --patience
	--histogram --diff-algorithm= --anchored= --no-ext-diff --no-textconv --pickaxe-regex --pickaxe-all --src-prefix=
	--dst-prefix= --no-prefix --default-prefix --line-prefix= --ita-invisible-in-index --submodule[=]
	--ignore-submodules[=] --ws-error-highlight= --base --ours --theirs --oneline --graph --decorate[=] --no-decorate
	--decorate-refs= --decorate-refs-exclude= --date= --relative-date --abbrev-commit --no-abbrev-commit --pretty[=]
	--format= --all --branches[=] --tags[=] --remotes[=] --glob= --exclude= --since= --after= --until= --before=
	--max-count= --skip= --max-age= --min-age= --author= --committer= --grep= --invert-grep --regexp-ignore-case
	--extended-regexp --fixed-strings --basic-regexp --perl-regexp --all-match --merges --no-merges --min-parents=
	--max-parents= --no-min-parents --no-max-parents --first-parent --reverse --follow --no-follow --full-history
	--dense --sparse --simplify-merges --simplify-by-decoration --ancestry-path[=] --source --walk-reflogs --left-right
	--left-only --right-only --cherry --cherry-pick --cherry-mark --boundary --topo-order --date-order
	--author-date-order --no-walk[=] --do-walk --mailmap --no-mailmap --use-mailmap --no-use-mailmap --encoding=
	--expand-tabs[=] --no-expand-tabs --notes[=] --no-notes --diff-merges= --no-diff-merges --cc --dd --remerge-diff
	--combined-all-paths --full-diff --parents --children --log-size --not --no-standard-notes --show-linear-break[=]
	--clear-decorations --show-pulls --in-commit-order --no-graph`
