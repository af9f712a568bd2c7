package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/stages"
)

// requireChromium, when set (CI sets it), makes a missing Chromium a
// failure of TestReportFitsWindow rather than a skip.
const requireChromium = "SL_TEST_REQUIRE_CHROMIUM"

// chromium finds a headless-capable Chromium on PATH, or skips (fails
// under requireChromium).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv(requireChromium) != "" {
		t.Fatalf("%s is set and no chromium is on PATH (Debian: apt-get install chromium)", requireChromium)
	}
	t.Skipf("no chromium on PATH (Debian: apt-get install chromium; %s=1 makes this a failure)", requireChromium)
	return ""
}

// widthProbe, run once the page has loaded, writes into the DOM the page's
// width, the window's, how many images failed to decode, and the elements
// that end right of the window (the culprits of an overflow).
const widthProbe = `<script>addEventListener("load",()=>{
const d=document.documentElement,out=[];
for(const e of document.body.querySelectorAll("*")){
 if(e.closest("div.wide")&&!e.matches("div.wide"))continue;
 const r=e.getBoundingClientRect();
 if(r.right>d.clientWidth+0.5)out.push(e.tagName.toLowerCase()+" right at "+Math.round(r.right)+": "+(e.textContent||"").trim().slice(0,60).replace(/\s+/g," "));
}
let broken=0;for(const i of document.images)if(!(i.complete&&i.naturalWidth>0))broken++;
const p=document.createElement("pre");p.id="sl-probe";
p.textContent="scroll="+d.scrollWidth+" client="+d.clientWidth+" broken="+broken+"\n"+out.slice(0,20).join("\n");
document.body.appendChild(p)})</script>`

var probeResult = regexp.MustCompile(`(?s)<pre id="sl-probe">scroll=(\d+) client=(\d+) broken=(\d+)\n(.*?)</pre>`)

// TestReportFitsWindow renders the quick run's report.html in headless
// Chromium in a window 1,280 px wide, a laptop's, and fails when the page
// is wider than the window (a reader would scroll sideways: a wide table
// must scroll inside its own box) or an embedded plot does not decode.
func TestReportFitsWindow(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	page, err := os.ReadFile(filepath.Join(quickRun(t), stages.ReportHTML))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	probed := filepath.Join(tmp, stages.ReportHTML)
	if !strings.Contains(string(page), "</body>") {
		t.Fatalf("report.html has no </body>")
	}
	if err := os.WriteFile(probed, []byte(strings.Replace(string(page), "</body>", widthProbe+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--hide-scrollbars", "--user-data-dir="+filepath.Join(tmp, "profile"), "--window-size=1280,900",
		"--dump-dom", "file://"+probed)
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", browser, err)
	}
	m := probeResult.FindSubmatch(dom)
	if m == nil {
		t.Fatalf("chromium's DOM holds no probe result (%d bytes)", len(dom))
	}
	scroll, _ := strconv.Atoi(string(m[1]))
	client, _ := strconv.Atoi(string(m[2]))
	if client < 1200 || client > 1280 {
		t.Fatalf("the window is %d px wide, not about 1,280", client)
	}
	if scroll > client {
		t.Errorf("report.html is %d px wide in a %d px window; what ends right of it:\n%s", scroll, client, m[4])
	}
	if broken, _ := strconv.Atoi(string(m[3])); broken > 0 {
		t.Errorf("%d of report.html's embedded plots do not decode", broken)
	}
}
