package main

import (
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strings"
)

// bearerFlags are --bearer-token and --bearer-token-env: the token of a protected server,
// sent as "Authorization: Bearer TOKEN" on every request of the probe (except the one that
// checks the server's challenge, which goes without) and kept out of every output like a
// --header value. The environment variable form keeps the token off the command line, which
// other users of the machine can read.
type bearerFlags struct {
	token, env string
}

func (b *bearerFlags) declare(fs *flag.FlagSet) {
	fs.StringVar(&b.token, "bearer-token", "", "")
	fs.StringVar(&b.env, "bearer-token-env", "", "")
}

// validate checks the flags against the rest of the command line. Errors never show the
// token.
func (b bearerFlags) validate(stdio bool, header http.Header) error {
	switch {
	case b.token == "" && b.env == "":
		return nil
	case b.token != "" && b.env != "":
		return errors.New("give --bearer-token or --bearer-token-env, not both")
	case stdio:
		return errors.New("--bearer-token applies to an HTTP URL, not to a stdio command (use --env for the server's environment)")
	case header.Get("Authorization") != "":
		return errors.New("--bearer-token and --header 'Authorization: ...' both set Authorization: give one")
	case b.env != "" && (strings.ContainsAny(b.env, "=\x00") || strings.TrimSpace(b.env) != b.env):
		return fmt.Errorf("--bearer-token-env %q is not the name of an environment variable", b.env)
	}
	return nil
}

// apply reads the token (from the environment with --bearer-token-env) and adds it to the
// target's headers and to the secrets of the run.
func (b bearerFlags) apply(cfg *checkConfig, lookupEnv func(string) (string, bool)) error {
	token := b.token
	if b.env != "" {
		v, ok := lookupEnv(b.env)
		if !ok || strings.TrimSpace(v) == "" {
			return fmt.Errorf("--bearer-token-env %s: the variable is not set or empty", b.env)
		}
		token = v
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return nil
	}
	if strings.ContainsAny(token, "\r\n\x00") {
		return errors.New("the bearer token contains a line break or NUL (the token is not shown)")
	}
	if cfg.target.Header == nil {
		cfg.target.Header = http.Header{}
	}
	cfg.target.Header.Set("Authorization", "Bearer "+token)
	cfg.headerNames = append(cfg.headerNames, "Authorization")
	cfg.secrets = append(cfg.secrets, token, "Bearer "+token)
	return nil
}
