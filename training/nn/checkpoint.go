package nn

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// checkpointMagic opens every checkpoint file; see the package
// documentation for the layout that follows.
const (
	checkpointMagic   = "SLNNCKPT"
	checkpointVersion = 1
	maxParamName      = 1<<16 - 1
)

// ErrCorrupt means a checkpoint's bytes are damaged: its sha256 trailer
// does not match, or it is truncated or malformed.
var ErrCorrupt = errors.New("nn: corrupt checkpoint")

// ErrVersion means a file is not a checkpoint (wrong magic) or is one of a
// version this code cannot read.
var ErrVersion = errors.New("nn: unsupported checkpoint")

// ErrArchMismatch means a checkpoint's parameters (names, order, shapes)
// differ from the model it is loaded into.
var ErrArchMismatch = errors.New("nn: checkpoint architecture does not match the model")

// archDescriptor encodes the names and shapes of ps as they appear in the
// checkpoint header; its sha256 is the architecture hash.
func archDescriptor(ps *Params) []byte {
	var b bytes.Buffer
	for _, p := range ps.list {
		if len(p.Name) > maxParamName {
			panic(fmt.Sprintf("nn: parameter name of %d bytes", len(p.Name)))
		}
		b.Write(binary.LittleEndian.AppendUint16(nil, uint16(len(p.Name))))
		b.WriteString(p.Name)
		b.Write(binary.LittleEndian.AppendUint32(nil, uint32(p.Rows)))
		b.Write(binary.LittleEndian.AppendUint32(nil, uint32(p.Cols)))
	}
	return b.Bytes()
}

// WriteCheckpoint writes the values of ps to w in the checkpoint format.
func WriteCheckpoint(w io.Writer, ps *Params) error {
	h := sha256.New()
	mw := io.MultiWriter(w, h)
	desc := archDescriptor(ps)
	hdr := append([]byte(checkpointMagic), binary.LittleEndian.AppendUint32(nil, checkpointVersion)...)
	archHash := sha256.Sum256(desc)
	hdr = append(hdr, archHash[:]...)
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(len(ps.list)))
	hdr = append(hdr, desc...)
	if _, err := mw.Write(hdr); err != nil {
		return fmt.Errorf("nn: write checkpoint header: %w", err)
	}
	var buf []byte
	for _, p := range ps.list {
		buf = buf[:0]
		for _, v := range p.Data {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
		}
		if _, err := mw.Write(buf); err != nil {
			return fmt.Errorf("nn: write checkpoint parameter %q: %w", p.Name, err)
		}
	}
	if _, err := w.Write(h.Sum(nil)); err != nil {
		return fmt.Errorf("nn: write checkpoint trailer: %w", err)
	}
	return nil
}

// SaveCheckpoint writes ps to path atomically: into a temporary file in
// the same directory, synced, then renamed over path, so a crash leaves
// either the old file or the new one, never a half-written one.
func SaveCheckpoint(path string, ps *Params) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("nn: save checkpoint %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	// CreateTemp makes the file private; a checkpoint is an ordinary
	// artefact that other users of the run directory read.
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("nn: save checkpoint %s: %w", path, err)
	}
	if err := WriteCheckpoint(f, ps); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("nn: save checkpoint %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("nn: save checkpoint %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("nn: save checkpoint %s: %w", path, err)
	}
	return nil
}

// LoadCheckpoint reads the checkpoint at path into ps; see ReadCheckpoint.
func LoadCheckpoint(path string, ps *Params) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("nn: load checkpoint: %w", err)
	}
	defer f.Close()
	if err := ReadCheckpoint(f, ps); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// ReadCheckpoint reads a checkpoint from r into the values of ps. It
// checks the sha256 trailer (ErrCorrupt), the magic and version
// (ErrVersion) and that the file holds exactly ps's parameters with their
// shapes, in order (ErrArchMismatch, naming the differences) before it
// changes anything: on error ps is untouched.
func ReadCheckpoint(r io.Reader, ps *Params) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("nn: read checkpoint: %w", err)
	}
	const fixed = len(checkpointMagic) + 4 + sha256.Size + 4
	if len(b) < len(checkpointMagic) || string(b[:len(checkpointMagic)]) != checkpointMagic {
		return fmt.Errorf("%w: no %q magic", ErrVersion, checkpointMagic)
	}
	if len(b) < fixed+sha256.Size {
		return fmt.Errorf("%w: %d bytes is too short", ErrCorrupt, len(b))
	}
	body, trailer := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], trailer) {
		return fmt.Errorf("%w: sha256 %x does not match trailer %x", ErrCorrupt, sum, trailer)
	}
	if v := binary.LittleEndian.Uint32(body[8:]); v != checkpointVersion {
		return fmt.Errorf("%w: version %d, this code reads %d", ErrVersion, v, checkpointVersion)
	}
	archHash := body[12 : 12+sha256.Size]
	count := int(binary.LittleEndian.Uint32(body[12+sha256.Size:]))
	rest := body[fixed:]
	type entry struct {
		name       string
		rows, cols int
	}
	entries := make([]entry, 0, min(count, len(rest)/10))
	descStart := rest
	for i := 0; i < count; i++ {
		if len(rest) < 2 {
			return fmt.Errorf("%w: header ends in parameter %d", ErrCorrupt, i)
		}
		l := int(binary.LittleEndian.Uint16(rest))
		if len(rest) < 2+l+8 {
			return fmt.Errorf("%w: header ends in parameter %d", ErrCorrupt, i)
		}
		e := entry{name: string(rest[2 : 2+l])}
		e.rows = int(binary.LittleEndian.Uint32(rest[2+l:]))
		e.cols = int(binary.LittleEndian.Uint32(rest[6+l:]))
		entries = append(entries, e)
		rest = rest[2+l+8:]
	}
	desc := descStart[:len(descStart)-len(rest)]
	if sum := sha256.Sum256(desc); !bytes.Equal(sum[:], archHash) {
		return fmt.Errorf("%w: architecture hash does not match the parameter list", ErrCorrupt)
	}
	if !bytes.Equal(desc, archDescriptor(ps)) {
		var diffs []string
		inFile := map[string]entry{}
		for _, e := range entries {
			inFile[e.name] = e
		}
		for i, p := range ps.list {
			e, ok := inFile[p.Name]
			switch {
			case !ok:
				diffs = append(diffs, fmt.Sprintf("%q (%dx%d) missing from file", p.Name, p.Rows, p.Cols))
			case e.rows != p.Rows || e.cols != p.Cols:
				diffs = append(diffs, fmt.Sprintf("%q is %dx%d in file, %dx%d in model", p.Name, e.rows, e.cols, p.Rows, p.Cols))
			case i >= len(entries) || entries[i].name != p.Name:
				diffs = append(diffs, fmt.Sprintf("%q at a different position", p.Name))
			}
		}
		for _, e := range entries {
			if ps.byName[e.name] == nil {
				diffs = append(diffs, fmt.Sprintf("%q (%dx%d) in file, not in model", e.name, e.rows, e.cols))
			}
		}
		if len(diffs) == 0 {
			diffs = append(diffs, "the parameter lists differ")
		}
		return fmt.Errorf("%w: %s", ErrArchMismatch, strings.Join(diffs, "; "))
	}
	if len(rest) != 8*ps.Size() {
		return fmt.Errorf("%w: %d bytes of values for %d parameters", ErrCorrupt, len(rest), ps.Size())
	}
	for _, p := range ps.list {
		for j := range p.Data {
			p.Data[j] = math.Float64frombits(binary.LittleEndian.Uint64(rest))
			rest = rest[8:]
		}
	}
	return nil
}
