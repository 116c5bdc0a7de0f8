package kpls

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// jsonVersion is the last format version written as JSON.
const jsonVersion = 3

// envelope is a file of format versions 1–3: the payload as raw JSON and
// its SHA-256, so that a truncated or edited file is detected.
type envelope struct {
	Format  string          `json:"format"`
	Version int             `json:"version"`
	SHA256  string          `json:"sha256"`
	Model   json.RawMessage `json:"model"`
}

// openEnvelope decodes and verifies a file of format versions 1–3,
// returning its payload's JSON and its version.
func openEnvelope(b []byte) (json.RawMessage, int, error) {
	var env envelope
	if err := json.Unmarshal(b, &env); err != nil {
		if len(bytes.TrimSpace(b)) == 0 {
			return nil, 0, fmt.Errorf("%w: the file is empty", ErrModelFile)
		}
		return nil, 0, fmt.Errorf("%w: not a model file: neither binary (format version 4) nor JSON, or truncated (%v)", ErrModelFile, err)
	}
	switch {
	case env.Format != FormatName:
		return nil, 0, fmt.Errorf("%w: format %q, want %q", ErrModelFile, env.Format, FormatName)
	case env.Version > jsonVersion:
		// A JSON file claiming version 4 or later was not written by kpls.
		return nil, 0, fmt.Errorf("%w: JSON format version %d is newer than this program reads (%d); upgrade kpls", ErrModelFile, env.Version, jsonVersion)
	case env.Version < 1:
		return nil, 0, fmt.Errorf("%w: bad format version %d", ErrModelFile, env.Version)
	}
	sum := sha256.Sum256(env.Model)
	if hex.EncodeToString(sum[:]) != env.SHA256 {
		return nil, 0, fmt.Errorf("%w: checksum mismatch: the file was edited or damaged", ErrModelFile)
	}
	return env.Model, env.Version, nil
}

// loadJSON decodes a file of format versions 1–3 into m, which must be new.
func loadJSON(b []byte, m *Model) error {
	raw, version, err := openEnvelope(b)
	if err != nil {
		return err
	}
	var p payload
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return fmt.Errorf("%w: %v", ErrModelFile, err)
	}
	return p.into(m, version)
}
