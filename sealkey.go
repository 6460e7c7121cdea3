package hitl

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/hex"
)

// SealKeySize is the size of a sealing key: AES-256.
const SealKeySize = 32

// ParseSealKey reads the contents of a sealing key file (seal_key_file):
// 32 random bytes, raw, or written as 64 hexadecimal characters (e.g. by
// `openssl rand -hex 32`), surrounding white space aside.
func ParseSealKey(b []byte) ([]byte, error) {
	if len(b) == SealKeySize {
		return bytes.Clone(b), nil
	}
	t := bytes.TrimSpace(b)
	if len(t) == 2*SealKeySize {
		key := make([]byte, SealKeySize)
		if _, err := hex.Decode(key, t); err == nil {
			return key, nil
		}
	}
	return nil, Errorf(EINVALID, "a sealing key file holds %d random bytes, raw or as %d hexadecimal characters (openssl rand -hex 32); this one holds %d bytes", SealKeySize, 2*SealKeySize, len(b))
}

// CheckSealKey is the rule of where the sealing key comes from. Processes
// that share a store (replicas on PostgreSQL) must share the key, so it
// must come from a file they all read (seal_key_file); a store of one
// process may do without one (a key made at start, lost at restart). key
// is the file's key, nil when none is given.
func CheckSealKey(shared bool, key []byte) error {
	switch {
	case key != nil && len(key) != SealKeySize:
		return Errorf(EINVALID, "seal_key_file: a sealing key is %d bytes, not %d", SealKeySize, len(key))
	case shared && key == nil:
		return Errorf(EINVALID, "seal_key_file (HITL_SEAL_KEY_FILE) is required with a PostgreSQL database: replicas seal sensitive answers with a key they share; make one with `openssl rand -hex 32 > hitl.key`")
	}
	return nil
}

// newSealerKey returns a sealer under key, named by a digest of the key:
// every process with the same key opens what another sealed, before and
// after restarts; the name reveals nothing of the key.
func newSealerKey(key []byte) (*sealer, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, Errorf(EINVALID, "sealing key: %v", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, Errorf(EINVALID, "sealing key: %v", err)
	}
	sum := sha256.Sum256(append([]byte("hitl seal key id\x00"), key...))
	return &sealer{aead: aead, keyID: "f" + hex.EncodeToString(sum[:8])}, nil
}
