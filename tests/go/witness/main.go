// Command witness is a small C2SP tlog-witness (c2sp.org/tlog-witness) for one log, written
// with Go's reference code (golang.org/x/mod/sumdb/note and sumdb/tlog) rather than
// Foyer's, to test Foyer's witness client and its cosignatures against.
//
// Usage:
//
//	witness serve -listen 127.0.0.1:0 -name NAME -seed HEX -log-vkey VKEY [-clock-offset SECONDS]
//	witness verify -log-vkey VKEY -witness-vkey VKEY FILE
//
// serve answers POST /add-checkpoint with a cosignature/v1 (Ed25519, c2sp.org/tlog-cosignature)
// and prints "listening on ADDR" once it accepts connections. Its state (the size and root it
// last cosigned) lives in memory. verify opens FILE, a checkpoint cosigned by the witness key,
// and prints the cosignature's timestamp; it exits 1 if the note does not verify.
package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

const cosignatureType = 0x04

// maxBody bounds a request: a checkpoint note, 63 proof lines and change.
const maxBody = 64 * 1024

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: witness serve|verify ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "serve":
		err = serve(os.Args[2:])
	case "verify":
		err = verify(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "witness:", err)
		os.Exit(1)
	}
}

// keyHash is a signed-note key id: SHA-256(name || "\n" || type || key)[:4].
func keyHash(name string, typ byte, key []byte) uint32 {
	h := sha256.New()
	h.Write([]byte(name + "\n"))
	h.Write([]byte{typ})
	h.Write(key)
	return binary.BigEndian.Uint32(h.Sum(nil))
}

// cosignedMessage is what a cosignature/v1 signs.
func cosignedMessage(text []byte, timestamp uint64) []byte {
	return append([]byte(fmt.Sprintf("cosignature/v1\ntime %d\n", timestamp)), text...)
}

// cosigner is a note.Signer of cosignature/v1: its signature is u64be timestamp || Ed25519.
type cosigner struct {
	name  string
	key   ed25519.PrivateKey
	clock func() uint64
}

func (c *cosigner) Name() string { return c.name }
func (c *cosigner) KeyHash() uint32 {
	return keyHash(c.name, cosignatureType, c.key.Public().(ed25519.PublicKey))
}
func (c *cosigner) Sign(text []byte) ([]byte, error) {
	t := c.clock()
	sig := binary.BigEndian.AppendUint64(nil, t)
	return append(sig, ed25519.Sign(c.key, cosignedMessage(text, t))...), nil
}

// cosignatureVerifier is a note.Verifier of cosignature/v1 lines; it keeps the last timestamp.
type cosignatureVerifier struct {
	name      string
	key       ed25519.PublicKey
	timestamp uint64
}

func (v *cosignatureVerifier) Name() string    { return v.name }
func (v *cosignatureVerifier) KeyHash() uint32 { return keyHash(v.name, cosignatureType, v.key) }
func (v *cosignatureVerifier) Verify(text, sig []byte) bool {
	if len(sig) != 8+ed25519.SignatureSize {
		return false
	}
	t := binary.BigEndian.Uint64(sig)
	if t >= 1<<63 || !ed25519.Verify(v.key, cosignedMessage(text, t), sig[8:]) {
		return false
	}
	v.timestamp = t
	return true
}

// parseCosignatureVkey reads a vkey of type 0x04, as note.NewVerifier does type 0x01.
func parseCosignatureVkey(vkey string) (*cosignatureVerifier, error) {
	parts := strings.SplitN(vkey, "+", 3)
	if len(parts) != 3 {
		return nil, errors.New("malformed witness vkey")
	}
	id, err1 := strconv.ParseUint(parts[1], 16, 32)
	key, err2 := base64.StdEncoding.DecodeString(parts[2])
	if err1 != nil || err2 != nil || len(key) != 1+ed25519.PublicKeySize || key[0] != cosignatureType {
		return nil, errors.New("malformed witness vkey")
	}
	v := &cosignatureVerifier{name: parts[0], key: ed25519.PublicKey(key[1:])}
	if v.KeyHash() != uint32(id) {
		return nil, errors.New("witness vkey: key id does not match")
	}
	return v, nil
}

func verify(args []string) error {
	flags := flag.NewFlagSet("verify", flag.ExitOnError)
	logVkey := flags.String("log-vkey", "", "the log's vkey")
	witnessVkey := flags.String("witness-vkey", "", "the witness's vkey (type 0x04)")
	flags.Parse(args)
	if flags.NArg() != 1 {
		return errors.New("verify: one FILE")
	}
	logVerifier, err := note.NewVerifier(*logVkey)
	if err != nil {
		return err
	}
	witness, err := parseCosignatureVkey(*witnessVkey)
	if err != nil {
		return err
	}
	msg, err := os.ReadFile(flags.Arg(0))
	if err != nil {
		return err
	}
	n, err := note.Open(msg, note.VerifierList(logVerifier, witness))
	if err != nil {
		return err
	}
	for _, sig := range n.Sigs {
		if sig.Name == witness.name && sig.Hash == witness.KeyHash() {
			fmt.Printf("cosigned at %d\n", witness.timestamp)
			return nil
		}
	}
	return errors.New("no cosignature by the witness")
}

// witness holds the latest checkpoint it cosigned; mu makes the check of the old size and
// the update one step, as the spec requires.
type witness struct {
	log    note.Verifier
	signer *cosigner
	mu     sync.Mutex
	size   int64
	root   tlog.Hash
}

func serve(args []string) error {
	flags := flag.NewFlagSet("serve", flag.ExitOnError)
	listen := flags.String("listen", "127.0.0.1:0", "loopback address to listen on")
	name := flags.String("name", "", "the witness's key name")
	seedHex := flags.String("seed", "", "the witness's Ed25519 seed, 64 hex digits")
	logVkey := flags.String("log-vkey", "", "the log's vkey")
	offset := flags.Int64("clock-offset", 0, "seconds added to the clock")
	flags.Parse(args)
	seed, err := hex.DecodeString(*seedHex)
	if err != nil || len(seed) != ed25519.SeedSize {
		return errors.New("-seed: 64 hex digits")
	}
	logVerifier, err := note.NewVerifier(*logVkey)
	if err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(*listen)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return errors.New("-listen: a loopback address and port")
	}
	w := &witness{log: logVerifier, signer: &cosigner{
		name:  *name,
		key:   ed25519.NewKeyFromSeed(seed),
		clock: func() uint64 { return uint64(time.Now().Unix() + *offset) },
	}}
	listener, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	fmt.Printf("listening on %s\n", listener.Addr())
	os.Stdout.Sync()
	mux := http.NewServeMux()
	mux.HandleFunc("/add-checkpoint", w.addCheckpoint)
	return http.Serve(listener, mux)
}

func (w *witness) addCheckpoint(rw http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(rw, "POST only", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		http.Error(rw, "body too large", http.StatusBadRequest)
		return
	}
	oldSize, proof, msg, err := parseRequest(body)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	n, err := note.Open(msg, note.VerifierList(w.log))
	if err != nil {
		origin, _, _ := strings.Cut(string(msg), "\n")
		if origin != w.log.Name() {
			http.Error(rw, "unknown log", http.StatusNotFound)
			return
		}
		var unverified *note.UnverifiedNoteError
		var invalid *note.InvalidSignatureError
		if errors.As(err, &unverified) || errors.As(err, &invalid) {
			http.Error(rw, "checkpoint not signed by the log: "+err.Error(), http.StatusForbidden)
			return
		}
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	tree, err := parseCheckpoint(n.Text)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	if oldSize > tree.N {
		http.Error(rw, "old size above the checkpoint's", http.StatusBadRequest)
		return
	}

	w.mu.Lock()
	defer w.mu.Unlock()
	if oldSize != w.size {
		rw.Header().Set("Content-Type", "text/x.tlog.size")
		rw.WriteHeader(http.StatusConflict)
		fmt.Fprintf(rw, "%d\n", w.size)
		return
	}
	if msg := w.checkConsistency(oldSize, proof, tree); msg != "" {
		http.Error(rw, msg, http.StatusUnprocessableEntity)
		return
	}
	signed, err := note.Sign(&note.Note{Text: n.Text}, w.signer)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusInternalServerError)
		return
	}
	w.size, w.root = tree.N, tree.Hash
	rw.Write(signed[len(n.Text)+1:])
}

// checkConsistency says what is wrong with the step from the stored tree to `tree`, if anything.
func (w *witness) checkConsistency(oldSize int64, proof tlog.TreeProof, tree tlog.Tree) string {
	switch {
	case tree.N == 0 && tree.Hash != sha256.Sum256(nil):
		return "an empty tree with another root than the empty one"
	case oldSize == 0 && len(proof) != 0:
		return "a proof from the empty tree"
	case oldSize == 0:
		return ""
	case tlog.CheckTree(proof, tree.N, tree.Hash, oldSize, w.root) != nil:
		return "the consistency proof does not verify"
	}
	return ""
}

// parseRequest splits an add-checkpoint body: "old N", proof lines, a blank line, the note.
func parseRequest(body []byte) (int64, tlog.TreeProof, []byte, error) {
	head, msg, ok := bytes.Cut(body, []byte("\n\n"))
	if !ok {
		return 0, nil, nil, errors.New("no blank line")
	}
	lines := strings.Split(string(head), "\n")
	sizeText := strings.TrimPrefix(lines[0], "old ")
	oldSize, err := strconv.ParseInt(sizeText, 10, 64)
	if sizeText == lines[0] || err != nil || oldSize < 0 || strconv.FormatInt(oldSize, 10) != sizeText {
		return 0, nil, nil, errors.New("bad old size line")
	}
	if len(lines)-1 > 63 {
		return 0, nil, nil, errors.New("more than 63 proof lines")
	}
	var proof tlog.TreeProof
	for _, line := range lines[1:] {
		h, err := tlog.ParseHash(line)
		if err != nil {
			return 0, nil, nil, errors.New("bad proof line")
		}
		proof = append(proof, h)
	}
	return oldSize, proof, msg, nil
}

// parseCheckpoint reads origin, size and root; extension lines are allowed and ignored.
func parseCheckpoint(text string) (tlog.Tree, error) {
	lines := strings.Split(text, "\n")
	if len(lines) < 4 || lines[len(lines)-1] != "" {
		return tlog.Tree{}, errors.New("not a checkpoint")
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != lines[1] {
		return tlog.Tree{}, errors.New("bad tree size")
	}
	hash, err := tlog.ParseHash(lines[2])
	if err != nil {
		return tlog.Tree{}, errors.New("bad root hash")
	}
	return tlog.Tree{N: size, Hash: hash}, nil
}
