package main

import (
	"flag"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/badinput"
)

// vegetaFlags are vegeta's connection flags, with its names, meanings and
// defaults; any of them makes the attack use the net/http client.
type vegetaFlags struct {
	cert, key, rootCerts, unixSocket string
	resolvers                        string
	chunked, sessionTickets          bool
	connectTo, laddr                 listFlag
	proxyHeader                      headerFlag
	dnsTTL                           time.Duration
	fs                               *flag.FlagSet
}

func (v *vegetaFlags) register(fs *flag.FlagSet) {
	v.fs = fs
	fs.StringVar(&v.cert, "cert", "", "TLS client PEM encoded certificate `file` (with -key; uses the net/http client)")
	fs.StringVar(&v.key, "key", "", "TLS client PEM encoded private key `file` (with -cert)")
	fs.StringVar(&v.rootCerts, "root-certs", "", "TLS root certificate `files` (comma separated list) instead of the system's")
	fs.BoolVar(&v.chunked, "chunked", false, "send bodies with chunked transfer encoding (uses the net/http client)")
	fs.Var(&v.connectTo, "connect-to", "connect to dst:port instead of a target's src:port, vegeta's `src:port:dst:port` (e.g. example.com:80:127.0.0.1:8080; loadlab's older host:port=addr:port also works); repeatable, one source several times is served in turn; uses the net/http client")
	fs.DurationVar(&v.dnsTTL, "dns-ttl", 0, "cache DNS lookups for this `duration` [-1 = disabled, 0 = forever] (uses the net/http client when given)")
	fs.Var(&v.laddr, "laddr", "local IP `address` to dial from (repeatable or comma separated: requests spread over them, for more source ports; uses the net/http client)")
	fs.Var(&v.proxyHeader, "proxy-header", "header sent to the HTTP proxy (HTTPS_PROXY / HTTP_PROXY) with each CONNECT, \"Name: value\" (repeatable)")
	fs.BoolVar(&v.sessionTickets, "session-tickets", false, "resume TLS sessions with session tickets")
	fs.StringVar(&v.resolvers, "resolvers", "", "DNS server `addresses` (ip[:port], comma separated, port 53 when none) asked in turn instead of the system's resolver (uses the net/http client)")
	fs.StringVar(&v.unixSocket, "unix-socket", "", "connect to this Unix socket `path` instead of the targets' hosts (uses the net/http client)")
}

// apply fills in the attack's Transport; errors name the flag.
func (v *vegetaFlags) apply(o *attack.Options) error {
	t := &o.Transport
	t.Cert, t.Key, t.Chunked, t.SessionTickets, t.UnixSocket = v.cert, v.key, v.chunked, v.sessionTickets, v.unixSocket
	if v.rootCerts != "" {
		for _, f := range strings.Split(v.rootCerts, ",") {
			if f = strings.TrimSpace(f); f != "" {
				t.RootCerts = append(t.RootCerts, f)
			}
		}
	}
	var err error
	if len(v.connectTo) > 0 {
		if t.ConnectTo, err = attack.ParseConnectTo(v.connectTo); err != nil {
			return err
		}
	}
	if t.LocalAddrs, err = attack.ParseLocalAddrs(v.laddr); err != nil {
		return err
	}
	if v.resolvers != "" {
		if t.Resolvers, err = attack.ParseResolvers(v.resolvers); err != nil {
			return err
		}
	}
	t.ProxyHeader = v.proxyHeader.h
	if v.dnsTTL < 0 && v.dnsTTL != -time.Second && v.dnsTTL != -1 {
		return badinput.Field("-dns-ttl", "want -1s (no caching), 0 (cache forever) or a positive duration, got %v", v.dnsTTL)
	}
	t.DNSTTL, t.DNSTTLSet = v.dnsTTL, flagSet(v.fs, "dns-ttl")
	return nil
}
