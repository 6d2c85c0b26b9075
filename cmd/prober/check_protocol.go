package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// Values of --protocol-version besides a revision.
const (
	protocolAuto = probe.RevisionAuto
	protocolAll  = "all"
)

// protocolFlags are the flags that choose what to speak: the transport of a URL and the
// protocol revision(s).
type protocolFlags struct {
	transport, protocol string
}

func (p *protocolFlags) declare(fs *flag.FlagSet) {
	fs.StringVar(&p.transport, "transport", protocol.TransportAuto, "")
	fs.StringVar(&p.protocol, "protocol-version", protocolAuto, "")
}

// protocolChoice is a validated protocolFlags.
type protocolChoice struct {
	transport string // "" for a command
	revision  string // what probe.Options.ProtocolVersion gets ("auto" for era detection)
	all       bool   // probe every revision
}

// validate checks the flags against the target kind.
func (p protocolFlags) validate(stdio bool) (protocolChoice, error) {
	var c protocolChoice
	switch p.transport {
	case protocol.TransportAuto, "":
		if !stdio {
			c.transport = protocol.TransportAuto
		}
	case protocol.TransportStdio:
		if !stdio {
			return c, fmt.Errorf("--transport stdio needs a command (after --), not a URL")
		}
	case protocol.TransportHTTP, protocol.TransportSSE:
		if stdio {
			return c, fmt.Errorf("--transport %s needs a URL, not a command", p.transport)
		}
		c.transport = p.transport
	default:
		return c, fmt.Errorf("--transport %q: want auto, stdio, http or sse", p.transport)
	}
	switch {
	case p.protocol == protocolAll:
		c.all = true
	case p.protocol == protocolAuto || protocol.KnownRevision(p.protocol):
		c.revision = p.protocol
	default:
		return c, fmt.Errorf("--protocol-version %q: want auto, all or one of %s", p.protocol, strings.Join(protocol.Revisions(), ", "))
	}
	return c, nil
}
