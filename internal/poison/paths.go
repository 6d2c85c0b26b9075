package poison

import (
	"sort"
	"strings"
)

// Credential stores and client configuration a description has no business asking a model to
// read: SSH keys, cloud and package-registry credentials, the MCP clients' own configuration
// (which holds the other servers' tokens), shell history. A mention alone is no attack (a tool
// may take the path of a key as an argument); a request to read one, or to pass its content
// on, is. Weak markers (.env, /etc/passwd, ...) name files that ordinary tools mention more
// often, and match only with a request to read them or their content.
var (
	strongMarkers = []string{
		"~/.ssh", "/.ssh/", "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", ".aws/credentials",
		"aws_secret_access_key", "application_default_credentials", ".netrc", ".npmrc", ".pypirc",
		".pgpass", ".git-credentials", ".docker/config.json", ".kube/config", "mcp.json",
		"claude_desktop_config", ".cursor/", "/etc/shadow", ".gnupg", "wallet.dat",
		".bash_history", ".zsh_history", ".config/gh/hosts",
	}
	weakMarkers = []string{".env", "/etc/passwd", "credentials.json", "secrets.json", "secrets.yaml", "secrets.yml"}
)

// Words around a marker that make it a request: a read just before it, or a word of passing
// content on near it. Base forms only: "reads ~/.ssh/config" describes what a tool does,
// "read ~/.ssh/config" tells the model to do it.
var (
	readVerbs = map[string]bool{"read": true, "cat": true, "open": true, "load": true, "get": true,
		"fetch": true, "grab": true, "obtain": true, "retrieve": true, "dump": true, "print": true, "output": true}
	passWords = map[string]bool{"content": true, "contents": true, "send": true, "include": true,
		"attach": true, "upload": true, "append": true, "concatenate": true, "paste": true, "forward": true,
		"post": true, "exfiltrate": true, "leak": true, "transmit": true, "embed": true, "sidenote": true}
	negations = map[string]bool{"not": true, "never": true, "no": true, "without": true, "except": true,
		"excluding": true, "exclude": true, "excludes": true, "ignore": true, "ignores": true, "skip": true,
		"skips": true, "avoid": true, "nor": true}
)

const (
	readReach  = 3  // words between a read verb and the path
	passReach  = 20 // words between a pass word and the path
	weakReach  = 5  // words between "content" and a weak marker
	negReach   = 6  // words before a trigger that can negate it
	chunkBytes = 256
)

// scanPaths finds a request to read a credential store or client configuration, or to pass
// its content on. ts are the words of shown; excerpts come from src.
func scanPaths(shown, src string, ts []token) (Match, bool) {
	best := Match{}
	bestAt := -1
	try := func(marker string, strong bool) {
		for from := 0; from < len(shown); {
			i := strings.Index(shown[from:], marker)
			if i < 0 {
				return
			}
			i += from
			from = i + len(marker)
			if bestAt >= 0 && i >= bestAt {
				return
			}
			if marker == ".env" && !envFile(shown, i) {
				continue
			}
			start, end := chunk(shown, i, i+len(marker))
			if trigger, ok := requested(ts, start, end, strong); ok {
				bestAt = i
				best = Match{Family: Exfiltration, Pattern: shown[start:end] + " with \"" + trigger + "\"",
					Excerpt: excerpt(src, start, end)}
				return
			}
		}
	}
	for _, m := range strongMarkers {
		try(m, true)
	}
	for _, m := range weakMarkers {
		try(m, false)
	}
	return best, bestAt >= 0
}

// envFile reports whether the ".env" at i names a dotenv file: not process.env, not .envrc.
func envFile(s string, i int) bool {
	if i > 0 {
		c := s[i-1]
		if wordByte(c) || c == '_' || c == '-' || c == '.' {
			return false
		}
	}
	j := i + len(".env")
	return j == len(s) || !(wordByte(s[j]) || s[j] == '_')
}

// chunk widens a marker to the path around it: the run of characters up to spaces, quotes,
// brackets and backticks, at most chunkBytes on each side.
func chunk(s string, start, end int) (int, int) {
	stop := func(c byte) bool {
		return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '\'' || c == '`' ||
			c == '(' || c == ')' || c == '[' || c == ']' || c == '<' || c == '>' || c == ',' || c == ';'
	}
	for lo := start; start > 0 && lo-start < chunkBytes && !stop(s[start-1]); start-- {
	}
	for hi := end; end < len(s) && end-hi < chunkBytes && !stop(s[end]); end++ {
	}
	for end > start && (s[end-1] == '.' || s[end-1] == ':') {
		end--
	}
	return start, end
}

// requested reports the word that makes the path at [start, end) a request, if any.
func requested(ts []token, start, end int, strong bool) (string, bool) {
	before := sort.Search(len(ts), func(i int) bool { return ts[i].end > start })
	after := sort.Search(len(ts), func(i int) bool { return ts[i].start >= end })
	for k := before - 1; k >= 0 && before-k <= readReach && ts[k].w != ""; k-- {
		if readVerbs[ts[k].w] && !negated(ts, k) {
			return ts[k].w, true
		}
	}
	reach := passReach
	if !strong {
		reach = weakReach
	}
	look := func(k int) (string, bool) {
		w := ts[k].w
		if strong && passWords[w] || !strong && (w == "content" || w == "contents") {
			if !negated(ts, k) {
				return w, true
			}
		}
		return "", false
	}
	for k := before - 1; k >= 0 && before-k <= reach && ts[k].w != ""; k-- {
		if w, ok := look(k); ok {
			return w, true
		}
	}
	for k := after; k < len(ts) && k-after < reach && ts[k].w != ""; k++ {
		if w, ok := look(k); ok {
			return w, true
		}
	}
	return "", false
}

// negated reports a negation among the few words before token k ("never read", "do not
// include"): a description that forbids reading a key is no request to read it.
func negated(ts []token, k int) bool {
	for j := k - 1; j >= 0 && k-j <= negReach && ts[j].w != ""; j-- {
		if negations[ts[j].w] {
			return true
		}
	}
	return false
}
