package main

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"os"
)

// tlsFlags are --ca-file and --insecure-skip-verify: how an https server's certificate is
// verified when the system's roots do not know its CA.
type tlsFlags struct {
	caFile     string
	skipVerify bool
}

func (v *tlsFlags) declare(fs *flag.FlagSet) {
	fs.StringVar(&v.caFile, "ca-file", "", "")
	fs.BoolVar(&v.skipVerify, "insecure-skip-verify", false, "")
}

// tlsSettings are the validated flags, ready for probe.Options.
type tlsSettings struct {
	roots      *x509.CertPool // nil: the system's
	skipVerify bool
}

// validate reads the CA file. Its certificates are added to the system's roots rather than
// replacing them, so that one file naming the private CA is enough whatever else the
// server's chain or its authorization server's certificate need.
func (v *tlsFlags) validate(stdio bool) (tlsSettings, error) {
	if v.caFile == "" && !v.skipVerify {
		return tlsSettings{}, nil
	}
	switch {
	case stdio && v.caFile != "":
		return tlsSettings{}, errors.New("--ca-file applies to an https URL, not to a stdio command")
	case stdio:
		return tlsSettings{}, errors.New("--insecure-skip-verify applies to an https URL, not to a stdio command")
	case v.caFile != "" && v.skipVerify:
		return tlsSettings{}, errors.New("--ca-file and --insecure-skip-verify contradict each other: give the CA file to verify against it, or turn verifying off")
	case v.skipVerify:
		return tlsSettings{skipVerify: true}, nil
	}
	pemBytes, err := os.ReadFile(v.caFile)
	if err != nil {
		return tlsSettings{}, fmt.Errorf("--ca-file: %w", err)
	}
	roots, err := x509.SystemCertPool()
	if err != nil || roots == nil {
		roots = x509.NewCertPool()
	}
	if n, err := addPEMCertificates(roots, pemBytes); err != nil {
		return tlsSettings{}, fmt.Errorf("--ca-file %s: %w", v.caFile, err)
	} else if n == 0 {
		return tlsSettings{}, fmt.Errorf("--ca-file %s: no certificate in it (want PEM blocks of type CERTIFICATE)", v.caFile)
	}
	return tlsSettings{roots: roots}, nil
}

// addPEMCertificates adds every CERTIFICATE block of pemBytes to pool and counts them. Unlike
// CertPool.AppendCertsFromPEM it says which block does not parse rather than skipping it.
func addPEMCertificates(pool *x509.CertPool, pemBytes []byte) (int, error) {
	n := 0
	for i := 1; ; i++ {
		var block *pem.Block
		block, pemBytes = pem.Decode(pemBytes)
		if block == nil {
			return n, nil
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return n, fmt.Errorf("PEM block %d: %w", i, err)
		}
		pool.AddCert(cert)
		n++
	}
}
