// Command notecheck checks a log that Foyer published, with Go's reference code
// (golang.org/x/mod/sumdb/note and sumdb/tlog) rather than Foyer's own.
//
// Usage: notecheck DIR
//
// DIR holds what Foyer wrote: vkey (the log's verifier key), checkpoint and
// checkpoint.old (C2SP checkpoints of the same log at two sizes), the C2SP tiles
// and entry bundles under tile/, and proofs (inclusion and consistency proofs that
// Foyer computed, one per line as "inclusion INDEX HASH..." or "consistency OLD NEW
// HASH...", base64). It exits 0 if everything checks, 1 with the first problem if not.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// C2SP tiles are 2^8 hashes wide; their paths leave the height out.
const tileHeight = 8

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: notecheck DIR")
		os.Exit(2)
	}
	if err := check(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "notecheck:", err)
		os.Exit(1)
	}
	fmt.Println("notecheck: ok")
}

func check(dir string) error {
	vkey, err := os.ReadFile(filepath.Join(dir, "vkey"))
	if err != nil {
		return err
	}
	verifier, err := note.NewVerifier(strings.TrimSpace(string(vkey)))
	if err != nil {
		return fmt.Errorf("vkey: %v", err)
	}
	known := note.VerifierList(verifier)
	tree, origin, err := readCheckpoint(filepath.Join(dir, "checkpoint"), known)
	if err != nil {
		return err
	}
	old, oldOrigin, err := readCheckpoint(filepath.Join(dir, "checkpoint.old"), known)
	if err != nil {
		return err
	}
	if origin != oldOrigin || origin != verifier.Name() {
		return fmt.Errorf("origins %q and %q, key %q: not one log", origin, oldOrigin, verifier.Name())
	}

	// Go rebuilds the tree from the entries alone; Foyer's tiles must be exactly its
	// tiles. (tlog.TileHashReader would check tiles against the checkpoint instead, but
	// the x/mod 0.7.0 of Debian 12 authenticates only the tiles of the tree hash through
	// it: its loop over the other tiles starts at the count of subtrees, not of tiles.)
	entries, err := readEntries(dir, tree.N)
	if err != nil {
		return err
	}
	var stored []tlog.Hash
	hashes := tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(indexes))
		for i, x := range indexes {
			if x < 0 || x >= int64(len(stored)) {
				return nil, fmt.Errorf("hash %d not in the tree", x)
			}
			out[i] = stored[x]
		}
		return out, nil
	})
	for i, entry := range entries {
		more, err := tlog.StoredHashes(int64(i), entry, hashes)
		if err != nil {
			return err
		}
		stored = append(stored, more...)
	}
	root, err := tlog.TreeHash(tree.N, hashes)
	if err != nil || root != tree.Hash {
		return fmt.Errorf("the entries give another root than the checkpoint's (%v)", err)
	}
	if err := checkTiles(dir, tree.N, hashes); err != nil {
		return err
	}
	if err := checkProofs(filepath.Join(dir, "proofs"), tree, old, hashes); err != nil {
		return err
	}
	fmt.Printf("notecheck: %s: %d entries, consistent with %d\n", origin, tree.N, old.N)
	return nil
}

// readCheckpoint opens a signed checkpoint: origin, size and root, no extension lines.
func readCheckpoint(path string, known note.Verifiers) (tlog.Tree, string, error) {
	msg, err := os.ReadFile(path)
	if err != nil {
		return tlog.Tree{}, "", err
	}
	n, err := note.Open(msg, known)
	if err != nil {
		return tlog.Tree{}, "", fmt.Errorf("%s: %v", path, err)
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) != 4 || lines[0] == "" || lines[3] != "" {
		return tlog.Tree{}, "", fmt.Errorf("%s: not three lines", path)
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != lines[1] {
		return tlog.Tree{}, "", fmt.Errorf("%s: bad tree size %q", path, lines[1])
	}
	hash, err := tlog.ParseHash(lines[2])
	if err != nil {
		return tlog.Tree{}, "", fmt.Errorf("%s: bad root hash: %v", path, err)
	}
	return tlog.Tree{N: size, Hash: hash}, lines[0], nil
}

// c2spPath is Go's tile path without the height, with "entries" for "data".
func c2spPath(t tlog.Tile) string {
	p := strings.TrimPrefix(t.Path(), fmt.Sprintf("tile/%d/", tileHeight))
	if t.L == -1 {
		p = "entries/" + strings.TrimPrefix(p, "data/")
	}
	return "tile/" + p
}

// treeTiles lists the tiles of a tree of the given size at one level (-1 for the entry
// bundles, which are shaped as level 0): the full ones, then the partial one if any.
func treeTiles(size int64, level int) []tlog.Tile {
	var out []tlog.Tile
	hashes := size
	if level > 0 {
		hashes = size >> (tileHeight * level)
	}
	for n := int64(0); n < hashes>>tileHeight; n++ {
		out = append(out, tlog.Tile{H: tileHeight, L: level, N: n, W: 1 << tileHeight})
	}
	if w := hashes % (1 << tileHeight); w > 0 {
		out = append(out, tlog.Tile{H: tileHeight, L: level, N: hashes >> tileHeight, W: int(w)})
	}
	return out
}

// readEntries reads the entry bundles: each must hold exactly its entries,
// as u16be length-prefixed byte strings.
func readEntries(dir string, size int64) ([][]byte, error) {
	var entries [][]byte
	for _, bundle := range treeTiles(size, -1) {
		data, err := os.ReadFile(filepath.Join(dir, c2spPath(bundle)))
		if err != nil {
			return nil, err
		}
		for i := 0; i < bundle.W; i++ {
			if len(data) < 2 || len(data) < 2+(int(data[0])<<8|int(data[1])) {
				return nil, fmt.Errorf("%s: entry %d cut short", c2spPath(bundle), i)
			}
			length := int(data[0])<<8 | int(data[1])
			entries = append(entries, data[2:2+length])
			data = data[2+length:]
		}
		if len(data) != 0 {
			return nil, fmt.Errorf("%s: bytes after the last entry", c2spPath(bundle))
		}
	}
	return entries, nil
}

// checkTiles checks that every tile of the tree is on disk, exactly as Go computes it.
func checkTiles(dir string, size int64, hashes tlog.HashReader) error {
	for level := 0; size>>(tileHeight*level) > 0; level++ {
		for _, tile := range treeTiles(size, level) {
			want, err := tlog.ReadTileData(tile, hashes)
			if err != nil {
				return err
			}
			got, err := os.ReadFile(filepath.Join(dir, c2spPath(tile)))
			if err != nil {
				return err
			}
			if !bytes.Equal(got, want) {
				return fmt.Errorf("%s: not the tile of these entries", c2spPath(tile))
			}
		}
	}
	return nil
}

// checkProofs checks Foyer's proofs, and that Go's own proofs are the same.
func checkProofs(path string, tree, old tlog.Tree, hashes tlog.HashReader) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	lines := bufio.NewScanner(file)
	checked := 0
	for lines.Scan() {
		f := strings.Fields(lines.Text())
		if len(f) < 2 {
			return fmt.Errorf("proofs: bad line %q", lines.Text())
		}
		switch f[0] {
		case "inclusion":
			index, err := strconv.ParseInt(f[1], 10, 64)
			proof, err2 := parseHashes(f[2:])
			if err != nil || err2 != nil {
				return fmt.Errorf("proofs: bad line %q", lines.Text())
			}
			leaf, err := hashes.ReadHashes([]int64{tlog.StoredHashIndex(0, index)})
			if err != nil {
				return err
			}
			if err := tlog.CheckRecord(proof, tree.N, tree.Hash, index, leaf[0]); err != nil {
				return fmt.Errorf("Foyer's inclusion proof of %d: %v", index, err)
			}
			ours, err := tlog.ProveRecord(tree.N, index, hashes)
			if err != nil || !sameHashes(ours, proof) {
				return fmt.Errorf("inclusion proof of %d differs from Go's (%v)", index, err)
			}
		case "consistency":
			if len(f) < 3 {
				return fmt.Errorf("proofs: bad line %q", lines.Text())
			}
			from, err1 := strconv.ParseInt(f[1], 10, 64)
			to, err2 := strconv.ParseInt(f[2], 10, 64)
			proof, err3 := parseHashes(f[3:])
			if err1 != nil || err2 != nil || err3 != nil || from != old.N || to != tree.N {
				return fmt.Errorf("proofs: bad line %q", lines.Text())
			}
			if err := tlog.CheckTree(proof, tree.N, tree.Hash, old.N, old.Hash); err != nil {
				return fmt.Errorf("Foyer's consistency proof %d -> %d: %v", old.N, tree.N, err)
			}
			ours, err := tlog.ProveTree(tree.N, old.N, hashes)
			if err != nil || !sameHashes(ours, proof) {
				return fmt.Errorf("consistency proof differs from Go's (%v)", err)
			}
		default:
			return fmt.Errorf("proofs: bad line %q", lines.Text())
		}
		checked++
	}
	if err := lines.Err(); err != nil {
		return err
	}
	if checked == 0 {
		return fmt.Errorf("proofs: none")
	}
	return nil
}

func parseHashes(fields []string) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(fields))
	for i, f := range fields {
		var err error
		if out[i], err = tlog.ParseHash(f); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func sameHashes(a, b []tlog.Hash) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i][:], b[i][:]) {
			return false
		}
	}
	return true
}
