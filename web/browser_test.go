package web

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// chromiumPath is Debian's Chromium, which the browser tests drive.
const chromiumPath = "/usr/bin/chromium"

// artifactsDir is where the browser tests leave their screenshots: $MCPWATCH_ARTIFACTS when
// set (CI keeps it), else a directory of the test's own.
func artifactsDir(t *testing.T) string {
	dir := os.Getenv("MCPWATCH_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	dir = filepath.Join(dir, "dashboard")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// newBrowser starts a headless Chromium of its own (fresh profile, no network besides the
// page's) and returns a context driving one tab.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		msg := fmt.Sprintf("browser test needs %s (apt-get install -y chromium): %v", chromiumPath, err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	// A profile of its own, removed after the browser ended. Chromium's helper processes can
	// still be writing to it as the browser exits, which t.TempDir would report as an error.
	profile, err := os.MkdirTemp("", "mcpwatch-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if os.RemoveAll(profile) != nil {
			time.Sleep(200 * time.Millisecond)
			_ = os.RemoveAll(profile)
		}
	})
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 900),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(cancelTab)
	if err := chromedp.Run(tab); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return tab
}

// colourScheme emulates prefers-color-scheme.
func colourScheme(scheme string) chromedp.Action {
	return emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}})
}

// maxShotHeight bounds a screenshot: a run's transcript can be very long, and its top says
// how it looks.
const maxShotHeight = 3600

// shots takes the current page in light and dark at desktop width and on a phone.
func shots(t *testing.T, tab context.Context, dir, name string) {
	t.Helper()
	for _, v := range []struct {
		suffix string
		width  int64
		scheme string
	}{
		{"light", 1280, "light"},
		{"dark", 1280, "dark"},
		{"phone", 390, "light"},
	} {
		var png []byte
		var overflow bool
		var height int64
		err := chromedp.Run(tab,
			chromedp.EmulateViewport(v.width, 900),
			colourScheme(v.scheme),
			chromedp.Evaluate(`window.scrollTo(0, 0)`, nil),
			chromedp.Evaluate(`document.documentElement.scrollWidth > window.innerWidth + 1`, &overflow),
			chromedp.Evaluate(`document.documentElement.scrollHeight`, &height),
		)
		if err == nil {
			err = chromedp.Run(tab,
				chromedp.EmulateViewport(v.width, min(height, maxShotHeight)),
				chromedp.CaptureScreenshot(&png),
			)
		}
		if err != nil {
			t.Fatalf("screenshot %s-%s: %v", name, v.suffix, err)
		}
		if overflow {
			t.Errorf("%s (%s): the page is wider than the %d px viewport", name, v.suffix, v.width)
		}
		path := filepath.Join(dir, name+"-"+v.suffix+".png")
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot %s", path)
	}
	if err := chromedp.Run(tab, chromedp.EmulateViewport(1280, 900), colourScheme("light")); err != nil {
		t.Fatal(err)
	}
}

func testBrowser(t *testing.T, f *fleet) {
	start := time.Now()
	h, err := New(Deps{Store: f.store, Checks: f.checks, Version: "test", Refresh: time.Second, StatusTTL: time.Second,
		Now: func() time.Time { return f.now.Add(time.Since(start)) }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	tab := newBrowser(t)
	dir := artifactsDir(t)

	// The status page lists the seeded servers with their states.
	var rows [][]string
	if err := chromedp.Run(tab,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(`ol.servers li.server`),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('li.server')).map(li =>
			[li.querySelector('.server-name').textContent, li.querySelector('.pill').classList[1]])`, &rows),
	); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rows {
		got[r[0]] = r[1]
	}
	for _, p := range f.plans {
		if got[p.Name] != p.State {
			t.Errorf("status page shows %s as %q, want %q", p.Name, got[p.Name], p.State)
		}
	}

	// What issue 22 asks of the status page, visible on screen: open alerts with why they are
	// open (flapping, a certificate, a maintenance window), a day's failed share rather than a
	// red day, and "no data" before a server's first run.
	for _, tc := range []struct{ what, selector string }{
		{"weather-tools' alert held open while flapping", `li.server:has(a[href="/servers/weather-tools"]) li.open-alert.flapping`},
		{"weather-tools' alert pill beside its Up pill", `li.server:has(a[href="/servers/weather-tools"]) .pill.alerting`},
		{"search-index's certificate alert", `li.server:has(a[href="/servers/search-index"]) li.open-alert[data-kind="certificate"]`},
		{"github-bridge's alert held back by a maintenance window", `li.server:has(a[href="/servers/github-bridge"]) li.open-alert.maintenance`},
		{"the headline's count of open alerts", `.hero .alerts-open`},
		{"notes-beta's strip saying no data", `li.server:has(a[href="/servers/notes-beta"]) .strip-axis .nodata`},
		{"weather-tools' failed share of a day", `li.server:has(a[href="/servers/weather-tools"]) svg.uptime rect.share`},
		{"billing-api's newest run, a down tick of the recent probes", `li.server:has(a[href="/servers/billing-api"]) svg.recent rect:last-of-type.tick-down`},
		{"weather-tools' recent probes beside its 90 days", `li.server:has(a[href="/servers/weather-tools"]) .strips .recent-probes svg.recent`},
	} {
		var visible bool
		if err := chromedp.Run(tab, chromedp.Evaluate(`(() => { const e = document.querySelector(`+"`"+tc.selector+"`"+`);
			if (!e) return false; const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
			return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; })()`, &visible)); err != nil {
			t.Fatal(err)
		}
		if !visible {
			t.Errorf("status page: %s is not visible (%s)", tc.what, tc.selector)
		}
	}

	// Dark mode changes the colours (not only the screenshot's look).
	var light, dark string
	if err := chromedp.Run(tab,
		chromedp.Evaluate(`getComputedStyle(document.body).backgroundColor`, &light),
		colourScheme("dark"),
		chromedp.Evaluate(`getComputedStyle(document.body).backgroundColor`, &dark),
		colourScheme("light"),
	); err != nil {
		t.Fatal(err)
	}
	if light == dark {
		t.Errorf("dark mode keeps the background %s", light)
	}

	// The script refreshes the live part: the update time moves on without a reload.
	// Read in one script evaluation: a node looked up first and read after may have been
	// replaced by the refresh in between ("No node with given id found").
	const updated = `document.querySelector('.hero .updated time')?.textContent ?? ''`
	var before, after string
	if err := chromedp.Run(tab, chromedp.Evaluate(updated, &before)); err != nil {
		t.Fatal(err)
	}
	if before == "" {
		t.Fatal("the status page shows no update time")
	}
	deadline := time.Now().Add(20 * time.Second)
	for after = before; after == before && time.Now().Before(deadline); {
		if err := chromedp.Run(tab, chromedp.Sleep(300*time.Millisecond), chromedp.Evaluate(updated, &after)); err != nil {
			t.Fatal(err)
		}
	}
	if after == before {
		t.Errorf("the status page did not refresh itself (still %q)", before)
	}
	shots(t, tab, dir, "status")

	// A click opens a server page, whose latency chart draws lines.
	var paths int
	var title string
	if err := chromedp.Run(tab,
		chromedp.Click(`a.server-name[href="/servers/github-bridge"]`, chromedp.NodeVisible),
		chromedp.WaitVisible(`#latency .chart.wide svg path.line`),
		chromedp.Text(`h1`, &title),
		chromedp.Evaluate(`document.querySelectorAll('#latency .chart.wide svg path.line').length`, &paths),
	); err != nil {
		t.Fatal(err)
	}
	if title != "github-bridge" || paths < 2 {
		t.Errorf("server page %q draws %d lines, want github-bridge with p50 and p95 per region", title, paths)
	}
	var narrowShown bool
	if err := chromedp.Run(tab,
		chromedp.EmulateViewport(390, 844),
		chromedp.Evaluate(`getComputedStyle(document.querySelector('#latency .chart.narrow')).display !== 'none'`, &narrowShown),
		chromedp.EmulateViewport(1280, 900),
	); err != nil {
		t.Fatal(err)
	}
	if !narrowShown {
		t.Error("a phone does not get the narrow chart")
	}
	shots(t, tab, dir, "server")

	// A run's page opens from the history, with its report and its transcript.
	var frames int
	var report string
	if err := chromedp.Run(tab,
		chromedp.Click(`#runs tbody tr:first-child a`, chromedp.NodeVisible),
		chromedp.WaitVisible(`#transcript .frame`),
		chromedp.Evaluate(`document.querySelectorAll('#transcript li.frame').length`, &frames),
		chromedp.Text(`pre.report`, &report),
	); err != nil {
		t.Fatal(err)
	}
	if frames == 0 || !strings.Contains(report, "MCP conformance report") || !strings.Contains(report, "lifecycle.unknown-method") {
		t.Errorf("run page: %d frames, report %q", frames, report)
	}
	// Evidence links lead to their frame.
	var target string
	if err := chromedp.Run(tab,
		chromedp.Click(`pre.report a[href^="#frame-"]`, chromedp.NodeVisible),
		chromedp.Sleep(200*time.Millisecond),
		chromedp.Evaluate(`document.querySelector(':target') ? document.querySelector(':target').id : ''`, &target),
	); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(target, "frame-") {
		t.Errorf("an evidence link did not lead to a frame (target %q)", target)
	}
	shots(t, tab, dir, "run")

	files, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	slices.Sort(files)
	if len(files) < 9 {
		t.Errorf("screenshots: %v", files)
	}
}
