package web

import "testing"

func TestANSIToHTMLTurnsColoursIntoClassesAndEscapesText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain text is escaped", `a <b> & "c"`, `a &lt;b&gt; &amp; &#34;c&#34;`},
		{"one colour", "\x1b[32mok\x1b[0m done", `<span class="a32">ok</span> done`},
		{"bold red", "\x1b[1;31mFAIL\x1b[0m", `<span class="a1 a31">FAIL</span>`},
		{"colour left open is closed", "\x1b[2mdim", `<span class="a2">dim</span>`},
		{"a new colour closes the previous", "\x1b[33ma\x1b[36mb\x1b[0m", `<span class="a33">a</span><span class="a36">b</span>`},
		{"escaped text inside a colour", "\x1b[31m<script>\x1b[0m", `<span class="a31">&lt;script&gt;</span>`},
		{"a lone escape byte is shown, not obeyed", "a\x1bb", `a\x1bb`},
		{"a non-SGR sequence is shown", "\x1b[2Jx", `\x1b[2Jx`},
		{"frame references link to frames", "bad id [frames #3 #14]", `bad id [frames <a href="#frame-3">#3</a> <a href="#frame-14">#14</a>]`},
		{"a single frame", "\x1b[2m[frame #7]\x1b[0m", `<span class="a2">[frame <a href="#frame-7">#7</a>]</span>`},
		{"hash numbers elsewhere stay text", "issue #12", `issue #12`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := string(ansiToHTML(tc.in)); got != tc.want {
				t.Errorf("ansiToHTML(%q)\n got %s\nwant %s", tc.in, got, tc.want)
			}
		})
	}
}
