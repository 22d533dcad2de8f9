package bundle

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"

	"github.com/ksleuth/ksleuth/analysis/source"
)

// SecretSize is the size of a secret ReadSecret generates.
const SecretSize = 32

// ReadSecret returns the secret in the file at path, or, when there is no
// file there, generates one and writes it (readable by its owner only),
// never inside or next to an input: generated reports that. A secret
// shorter than 16 bytes is refused: it could be found by trying.
func ReadSecret(path string, inputs []*source.Input) (secret []byte, generated bool, err error) {
	b, err := os.ReadFile(path)
	if err == nil {
		if len(b) < 16 {
			return nil, false, fmt.Errorf("%s: a secret of %d bytes is too short: want at least 16", path, len(b))
		}
		return b, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, err
	}
	if err := source.CheckOutput(path, source.OutputFile, inputs); err != nil {
		return nil, false, err
	}
	b = make([]byte, SecretSize)
	if _, err := rand.Read(b); err != nil {
		return nil, false, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, false, err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, false, err
	}
	return b, true, f.Close()
}

// secretID names a secret without revealing it.
func secretID(secret []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("ksleuth bundle secret id"))
	return hex.EncodeToString(m.Sum(nil)[:8])
}

// filler replaces payloads with bytes derived from their HMAC-SHA-256:
// the MAC keys AES-256 in counter mode, whose key stream is the new
// payload. Equal payloads get equal bytes of the same length; without
// the secret nothing of the original can be read back or confirmed by
// guessing. Not safe for concurrent use.
type filler struct {
	mac hash.Hash
	sum []byte
	iv  [aes.BlockSize]byte
}

func newFiller(secret []byte) *filler {
	return &filler{mac: hmac.New(sha256.New, secret)}
}

// fill replaces p in place.
func (f *filler) fill(p []byte) {
	f.mac.Reset()
	f.mac.Write(p)
	f.sum = f.mac.Sum(f.sum[:0])
	block, err := aes.NewCipher(f.sum)
	if err != nil {
		panic(err) // a 32-byte key is always valid
	}
	clear(p)
	cipher.NewCTR(block, f.iv[:]).XORKeyStream(p, p)
}
