package report

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// chromium finds Debian's headless-capable Chromium, skipping the test
// where there is none.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH (apt-get install -y chromium): the report page is not opened in a browser")
	return ""
}

// shot opens page in headless Chromium and returns its screenshot and the
// console messages that were errors.
func shot(t *testing.T, browser string, page []byte) (image.Image, []string) {
	t.Helper()
	dir := t.TempDir()
	html, out := filepath.Join(dir, "report.html"), filepath.Join(dir, "shot.png")
	if err := os.WriteFile(html, page, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--no-first-run", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--enable-logging=stderr", "--v=0", "--window-size=1280,2000", "--screenshot="+out, "file://"+html)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("chromium wrote no screenshot: %v\n%s", err, stderr.String())
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decoding the screenshot: %v", err)
	}
	return img, consoleErrors(stderr.String())
}

// consoleLine matches a console message Chromium logs on stderr that is
// an error: a console.error, an uncaught exception, a failed load.
var consoleLine = regexp.MustCompile(`(?m)^.*(CONSOLE.*(?i:error|uncaught)|Uncaught|Failed to load resource|net::ERR_).*$`)

func consoleErrors(stderr string) []string { return consoleLine.FindAllString(stderr, -1) }

// colours counts the distinct colours of img, up to limit.
func colours(img image.Image, limit int) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
			if len(seen) >= limit {
				return len(seen)
			}
		}
	}
	return len(seen)
}

func TestPageInChromium(t *testing.T) {
	browser := chromium(t)
	var page bytes.Buffer
	if err := Write(&page, readAll(t), "v0.test"); err != nil {
		t.Fatalf("Write() = %v", err)
	}
	img, errs := shot(t, browser, page.Bytes())
	if got, want := img.Bounds().Size(), image.Pt(1280, 2000); got != want {
		t.Errorf("screenshot size = %v, want %v", got, want)
	}
	if n := colours(img, 64); n < 64 {
		t.Errorf("the screenshot has %d colours, want at least 64: the page drew next to nothing", n)
	}
	if len(errs) > 0 {
		t.Errorf("the console logged errors: %q", errs)
	}
}

// TestConsoleErrorsSeen proves that shot sees a page's console errors,
// so that TestPageInChromium can fail.
func TestConsoleErrorsSeen(t *testing.T) {
	browser := chromium(t)
	_, errs := shot(t, browser, []byte(`<!DOCTYPE html><html><body><p>x</p><script>console.error("broken page")</script></body></html>`))
	if len(errs) == 0 {
		t.Error("shot(a page that logs console.error) found no console errors")
	}
}
