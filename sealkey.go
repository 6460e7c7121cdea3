package hitl

import "github.com/hitlbot/hitl/fault"

// CheckSealKey is the rule of where the sealing key comes from. Processes
// that share a store (replicas on PostgreSQL) must share the key, so it
// must come from a file they all read (seal_key_file); a store of one
// process may do without one (a key made at start, lost at restart).
func CheckSealKey(shared, keyFile bool) error {
	if shared && !keyFile {
		return fault.Errorf(fault.EINVALID, "seal_key_file (HITL_SEAL_KEY_FILE) is required with a PostgreSQL database: replicas seal sensitive answers with a key they share; make one with `openssl rand -hex 32 > hitl.key`")
	}
	return nil
}
