// Package seal is the cipher behind hitl.Sealer: sensitive answers are
// encrypted with AES-256-GCM, bound to their question, under a key that is
// never written to the database. The key is made at start (lost at
// restart: people are asked again) or read from a key file that replicas
// share (seal_key_file).
package seal

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// KeySize is the size of a key: AES-256.
const KeySize = 32

// Cipher seals and opens sensitive answers under one key.
type Cipher struct {
	aead  cipher.AEAD
	keyID string
}

// New returns a cipher under a key made now, which exists only in this
// process's memory; its id is random.
func New() *Cipher {
	key := make([]byte, KeySize)
	id := make([]byte, 8)
	_, _ = rand.Read(key) // crypto/rand never fails on supported platforms
	_, _ = rand.Read(id)
	c, err := newCipher(key, hex.EncodeToString(id))
	clear(key)
	if err != nil {
		panic("seal: " + err.Error())
	}
	return c
}

// WithKey returns a cipher under key, named by a digest of the key: every
// process with the same key opens what another sealed, before and after
// restarts; the name reveals nothing of the key.
func WithKey(key []byte) (*Cipher, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("a sealing key is %d bytes, not %d", KeySize, len(key))
	}
	sum := sha256.Sum256(append([]byte("hitl seal key id\x00"), key...))
	return newCipher(key, "f"+hex.EncodeToString(sum[:8]))
}

func newCipher(key []byte, id string) (*Cipher, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("sealing key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("sealing key: %w", err)
	}
	return &Cipher{aead: aead, keyID: id}, nil
}

// ParseKey reads the contents of a key file: 32 random bytes, raw, or
// written as 64 hexadecimal characters (e.g. by `openssl rand -hex 32`),
// surrounding white space aside.
func ParseKey(b []byte) ([]byte, error) {
	if len(b) == KeySize {
		return bytes.Clone(b), nil
	}
	t := bytes.TrimSpace(b)
	if len(t) == 2*KeySize {
		key := make([]byte, KeySize)
		if _, err := hex.Decode(key, t); err == nil {
			return key, nil
		}
	}
	return nil, fmt.Errorf("a sealing key file holds %d random bytes, raw or as %d hexadecimal characters (openssl rand -hex 32); this one holds %d bytes", KeySize, 2*KeySize, len(b))
}

// KeyID implements hitl.Sealer.
func (c *Cipher) KeyID() string { return c.keyID }

// Seal implements hitl.Sealer: nonce ‖ ciphertext, authenticated with
// bound.
func (c *Cipher) Seal(plain, bound []byte) ([]byte, error) {
	nonce := make([]byte, c.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return c.aead.Seal(nonce, nonce, plain, bound), nil
}

// Open implements hitl.Sealer: false when data was not sealed by this key
// with bound.
func (c *Cipher) Open(data, bound []byte) ([]byte, bool) {
	n := c.aead.NonceSize()
	if len(data) < n {
		return nil, false
	}
	plain, err := c.aead.Open(nil, data[:n], data[n:], bound)
	return plain, err == nil
}
