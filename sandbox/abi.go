package sandbox

import (
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// MaxABI is the newest Landlock ABI hitl builds rulesets for: the one it
// was tested under. A newer kernel is used at this ABI.
const MaxABI = 7

// ABIFunc reports the kernel's Landlock ABI version: 0 when the kernel
// has no Landlock (or it is turned off). Injected so that a test can
// simulate a kernel without Landlock.
type ABIFunc func() int

// KernelABI asks the running kernel (landlock_create_ruleset with
// LANDLOCK_CREATE_RULESET_VERSION), capped at MaxABI.
func KernelABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 0 {
		return 0
	}
	if v >= 6 {
		// go-landlock's rule: without the signal scoping fix (errata
		// bit 1) scoping is not trusted, and the ABI is used as 5.
		if e, err := ll.LandlockGetErrata(); err != nil || e&0x2 == 0 {
			v = 5
		}
	}
	return min(v, MaxABI)
}

// Unenforced says, for a kernel at ABI abi, what Landlock does not
// restrict there: what a sandboxed command may still do whatever its
// grant says. The first entries hold at every ABI.
func Unenforced(abi int) []string {
	out := []string{
		"UDP, raw and other non-TCP sockets, and Multipath TCP (Landlock's network rights cover TCP bind and connect only)",
		"a HOST in --net: Landlock filters TCP by port, so any host on that port is reachable",
		"connecting to pathname unix sockets (their files must exist; Landlock restricts creating them)",
		"reading or writing through file descriptors the command inherited (its terminal, pipes)",
		"metadata: stat, listing names through allowed directories, changing owners and modes (chmod, chown, utime)",
	}
	if abi < 1 {
		return []string{"everything: this kernel has no Landlock (Linux 5.13 or later with CONFIG_SECURITY_LANDLOCK and landlock in the lsm= list)"}
	}
	if abi < 2 {
		out = append(out, "renaming and linking files across directories (ABI 2)")
	}
	if abi < 3 {
		out = append(out, "truncating files (ABI 3)")
	}
	if abi < 4 {
		out = append(out, "every network connection and bind (ABI 4)")
	}
	if abi < 5 {
		out = append(out, "ioctl on devices (ABI 5)")
	}
	if abi < 6 {
		out = append(out, "signals to processes outside the sandbox and abstract unix sockets (ABI 6)")
	}
	return out
}
