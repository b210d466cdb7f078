// The Go connector's test driver (tests/connectors/conformance.test.js):
//
//	connectorcheck vectors FILE   prints the verdicts on the shared vectors as JSON
//	connectorcheck serve ISSUER ROOM JWKS_URL LOGIN_URL
//	                              a shop on a loopback port with /shop/ behind the connector
//	connectorcheck done FOYER_URL ROOM SITE_TOKEN JTI
//	                              reports the pass finished
package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"

	"foyer.local/connectors/foyerpass"
)

type vectorFile struct {
	Issuer string                     `json:"issuer"`
	Room   string                     `json:"room"`
	Leeway int64                      `json:"leeway_seconds"`
	Login  string                     `json:"login_url"`
	Keys   map[string]json.RawMessage `json:"keys"`
	Passes []struct {
		Name, Token, Keys string
		Now               int64
	} `json:"passes"`
	Destinations []struct{ Target string } `json:"destinations"`
	Refusals     []struct {
		Name   string
		Target string
		Error  *string
	} `json:"refusals"`
}

func vectors(path string) error {
	text, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var v vectorFile
	if err := json.Unmarshal(text, &v); err != nil {
		return err
	}
	keys := map[string]foyerpass.Keys{}
	for name, set := range v.Keys {
		if keys[name], err = foyerpass.LoadKeys(set); err != nil {
			return err
		}
	}
	type verdict struct {
		OK    bool    `json:"ok"`
		Error *string `json:"error"`
		Sub   string  `json:"sub,omitempty"`
	}
	out := struct {
		Passes       map[string]verdict `json:"passes"`
		Destinations map[string]string  `json:"destinations"`
		Refusals     map[string]string  `json:"refusals"`
	}{map[string]verdict{}, map[string]string{}, map[string]string{}}
	for _, p := range v.Passes {
		r := foyerpass.Verify(p.Token, keys[p.Keys], v.Issuer, v.Room, v.Leeway, p.Now)
		d := verdict{OK: r.OK, Sub: r.Sub}
		if !r.OK {
			d.Error = &r.Error
		}
		out.Passes[p.Name] = d
	}
	for _, d := range v.Destinations {
		out.Destinations[d.Target] = foyerpass.EntryLocation(d.Target)
	}
	for _, r := range v.Refusals {
		code := ""
		if r.Error != nil {
			code = *r.Error
		}
		out.Refusals[r.Name] = foyerpass.RefusalLocation(v.Login, code, r.Target)
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}

func serve(issuer, room, jwks, login string) error {
	checker, err := foyerpass.New(foyerpass.Config{Issuer: issuer, Room: room, JWKSURL: jwks, LoginURL: login})
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/shop/", checker.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pass, _ := foyerpass.FromContext(r.Context())
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"visitor": pass.Sub})
	})))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("listening on http://%s\n", ln.Addr())
	return http.Serve(ln, mux)
}

func done(foyer, room, token, jti string) error {
	checker, err := foyerpass.New(foyerpass.Config{Room: room, JWKSURL: foyer + "/.well-known/jwks.json", FoyerURL: foyer, SiteToken: token})
	if err != nil {
		return err
	}
	return checker.Done([]string{jti})
}

func main() {
	var err error
	switch {
	case len(os.Args) == 3 && os.Args[1] == "vectors":
		err = vectors(os.Args[2])
	case len(os.Args) == 6 && os.Args[1] == "done":
		err = done(os.Args[2], os.Args[3], os.Args[4], os.Args[5])
	case len(os.Args) == 6 && os.Args[1] == "serve":
		err = serve(os.Args[2], os.Args[3], os.Args[4], os.Args[5])
	default:
		err = fmt.Errorf("usage: connectorcheck vectors FILE | serve ISSUER ROOM JWKS_URL LOGIN_URL | done FOYER_URL ROOM SITE_TOKEN JTI")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
