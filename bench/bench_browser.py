"""What a person waits for in a browser: our dashboard against the Streamlit floor (issue 22).

Run: ``.venv/bin/python bench/bench_browser.py [--runs 3] [--path choose] [--detail]`` (not part
of the test suite; needs Playwright and Debian's chromium at ``/usr/bin/chromium``).

The floor is a hello-world Streamlit app with one plotly bar chart, written to a temporary
folder beside a copy of our ``.streamlit/config.toml`` and started exactly as the dashboard
is (``python -m streamlit run``, the same flags and the same interpreter): it pays
Streamlit's own start, its frontend bundle and plotly.js, nothing of ours. Both apps are
started cold ``--runs`` times, interleaved (floor, ours, floor, ours, …), and for each start:

* **cold**: from spawning the server process to the first plotly chart drawn (its SVG
  attached) on ``/<path>`` in a fresh browser context, the browser already running (the
  health endpoint is polled every 50 ms, then the page is opened);
* **new session**: on that server, now warm, a second fresh browser context opens the
  same URL: from ``goto`` to the first chart.

Medians; the ratios ours / floor are the figures (goals: cold <= 1.2x, new session <= 1.3x).
``--detail`` prints where our time goes: the server's script runs (wall and CPU time, from a
wrapper around ``ScriptRunner._run_script`` in the server process), and the websocket
messages the browser received before the first chart (count and bytes).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import TIMED_SERVER, result  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: The first plotly chart drawn: plotly.js has attached its SVG.
CHART = '[data-testid="stPlotlyChart"] .js-plotly-plot .main-svg'

HELLO = '''import plotly.graph_objects as go
import streamlit as st

st.set_page_config(page_title="Hello", layout="wide")
st.title("Hello")
st.plotly_chart(go.Figure(go.Bar(x=["a", "b", "c"], y=[3, 1, 2])))
'''


#: Counts the websocket frames the page receives (and their bytes) before it is told to stop counting.
_WS_COUNT = """
window.__ws = {n: 0, bytes: 0, first: null, last: null, plot: null};
new MutationObserver(() => {
  if (window.__ws.plot === null && document.querySelector('[data-testid="stPlotlyChart"]'))
    window.__ws.plot = performance.now();
}).observe(document, {childList: true, subtree: true});
const _send = WebSocket.prototype.send;
const _add = WebSocket.prototype.addEventListener;
WebSocket.prototype.addEventListener = function (type, fn, opts) {
  if (type === 'message' && !this.__counted) {
    this.__counted = true;
    _add.call(this, 'message', (e) => {
      if (window.__ws.stop) return;
      window.__ws.n += 1;
      if (window.__ws.first === null) window.__ws.first = performance.now();
      window.__ws.last = performance.now();
      window.__ws.bytes += (e.data.byteLength || e.data.size || e.data.length || 0);
    });
  }
  return _add.call(this, type, fn, opts);
};
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(log: Path, home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE",)}
    # a server runs from compiled bytecode after its first start (an installed package always does)
    env.update(CAP_RUN_LOG=str(log), PYTHONUNBUFFERED="1", HOME=str(home),
               PYTHONPYCACHEPREFIX=str(home / "pycache"), LITELLM_LOCAL_MODEL_COST_MAP="True")
    return env


class Server:
    """One cold ``streamlit run`` of ``script`` in ``cwd`` (the timed wrapper above)."""

    def __init__(self, script: str, cwd: Path, tmp: Path):
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tmp / f"runs-{self.port}.jsonl"
        self.log.touch()
        self.t0 = time.time()
        self.proc = subprocess.Popen(
            [sys.executable, "-c", TIMED_SERVER, "run", script, "--server.port", str(self.port),
             "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
             "--server.fileWatcherType", "none"], cwd=cwd, env=_env(self.log, tmp), stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE)

    def wait_healthy(self) -> float:
        """Seconds from spawn until the health endpoint answers."""
        for _ in range(6000):
            try:
                with urllib.request.urlopen(self.url + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        return time.time() - self.t0
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(self.proc.stderr.read().decode(errors="replace")[-2000:])
            time.sleep(0.05)
        raise RuntimeError("the server did not answer in 5 minutes")

    def runs(self) -> list[dict]:
        return [json.loads(x) for x in self.log.read_text().splitlines() if x.strip()]

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _first_chart(browser, url: str) -> tuple[float, dict, float]:
    """(seconds from goto to the first chart, websocket counts until then, goto time.time()) in a fresh context."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    page.add_init_script(_WS_COUNT)
    t = time.time()
    page.goto(url, wait_until="commit")
    page.locator(CHART).first.wait_for(state="attached", timeout=600_000)
    dt = time.time() - t
    ws = page.evaluate("() => { window.__ws.stop = true; const w = window.__ws; w.chart = performance.now(); "
                       "w.js = performance.getEntriesByType('resource').filter(e => e.name.endsWith('.js'))"
                       ".map(e => [e.name.split('/').pop(), Math.round(e.startTime), Math.round(e.responseEnd), "
                       "e.encodedBodySize]); return w; }")
    errors = page.locator('[data-testid="stException"]').count()
    ctx.close()
    if errors:
        raise RuntimeError(f"{url}: an exception is shown")
    return dt, ws, t


def one_start(browser, script: str, cwd: Path, path: str, tmp: Path) -> dict:
    """Cold start and a new session of one server; times in seconds."""
    srv = Server(script, cwd, tmp)
    try:
        health = srv.wait_healthy()
        url = f"{srv.url}/{path}"
        dt, ws, t_goto = _first_chart(browser, url)
        cold = t_goto + dt - srv.t0
        n_cold = len(srv.runs())
        time.sleep(0.5)
        dt2, ws2, t2 = _first_chart(browser, url)
        runs = srv.runs()
        return {"cold": cold, "health": health, "goto_to_chart": dt, "session": dt2, "ws_cold": ws, "ws_session": ws2,
                "runs_cold": runs[:n_cold], "runs_session": [r for r in runs if r["start"] >= t2 - 0.05],
                "t0": srv.t0, "t_goto": t_goto}
    finally:
        srv.stop()


def _describe(tag: str, r: dict) -> None:
    def runs(rs, t_ref):
        return ", ".join(f"[{r['start'] - t_ref:.2f}→{r['end'] - t_ref:.2f} s, CPU {r['cpu_ms']:.0f} ms]" for r in rs)

    print(f"  {tag}: cold {r['cold']:.2f} s (health {r['health']:.2f} s, goto→chart {r['goto_to_chart']:.2f} s; "
          f"{r['ws_cold']['n']} ws messages, {r['ws_cold']['bytes'] / 1e3:.0f} kB); script runs from spawn: "
          f"{runs(r['runs_cold'], r['t0'])}")
    for k in ("ws_cold", "ws_session"):
        w = r[k]
        print(f"     {k}: in the page, first message {w['first'] or 0:.0f} ms, plotly element {w['plot'] or 0:.0f} ms, "
              f"last message {w['last'] or 0:.0f} ms, chart {w['chart']:.0f} ms; scripts over 50 kB "
              f"(name, start, end ms, bytes): {[x for x in w['js'] if x[3] > 50000]}")
    print(f"  {'':{len(tag)}s}  new session {r['session']:.2f} s ({r['ws_session']['n']} ws messages, "
          f"{r['ws_session']['bytes'] / 1e3:.0f} kB); its script runs: {runs(r['runs_session'], r['runs_session'][0]['start']) if r['runs_session'] else '-'}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--path", default="choose", help="the dashboard's page (URL path) whose first chart is timed")
    ap.add_argument("--detail", action="store_true")
    args = ap.parse_args()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("Playwright is not installed: skipped")
        return
    if not Path(CHROMIUM).exists():
        print(f"no {CHROMIUM}: skipped")
        return
    tmp = Path(tempfile.mkdtemp(prefix="cap-bench-browser-"))
    try:
        floor_dir = tmp / "floor"
        (floor_dir / ".streamlit").mkdir(parents=True)
        (floor_dir / "hello.py").write_text(HELLO)
        shutil.copy(ROOT / ".streamlit" / "config.toml", floor_dir / ".streamlit" / "config.toml")
        ours_home, floor_home = tmp / "home-ours", tmp / "home-floor"
        for h in (ours_home, floor_home):
            h.mkdir()
        out = {"floor": [], "ours": []}
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)  # a fresh profile of its own
            # one untimed start of each: bytecode compiled, the OS file cache warm (as after an install)
            one_start(browser, "hello.py", floor_dir, "", floor_home)
            one_start(browser, "app.py", ROOT, args.path, ours_home)
            for i in range(args.runs):
                out["floor"].append(one_start(browser, "hello.py", floor_dir, "", floor_home))
                out["ours"].append(one_start(browser, "app.py", ROOT, args.path, ours_home))
                if args.detail:
                    _describe("floor", out["floor"][-1])
                    _describe("ours ", out["ours"][-1])
            browser.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    med = {k: {f: statistics.median(r[f] for r in v) for f in ("cold", "session", "health")} for k, v in out.items()}
    cold_ratio = med["ours"]["cold"] / med["floor"]["cold"]
    sess_ratio = med["ours"]["session"] / med["floor"]["session"]
    load = os.getloadavg()[0]
    def fmt(who, key):
        return ", ".join(f"{r[key]:.2f}" for r in out[who])

    print(f"cold start -> first chart: ours {fmt('ours', 'cold')} s, floor {fmt('floor', 'cold')} s; new session: "
          f"ours {fmt('ours', 'session')} s, floor {fmt('floor', 'session')} s (load average {load:.1f})")
    result(f"server start -> first chart of /{args.path} (cold, browser)", med["ours"]["cold"], "s",
           "<= 1.2x the floor", cold_ratio <= 1.2, baseline=med["floor"]["cold"], ratio=cold_ratio,
           note=f"floor: hello-world Streamlit app with one plotly chart, started the same way; medians of "
                f"{args.runs} interleaved cold starts; health endpoint up after {med['ours']['health']:.2f} s "
                f"(floor {med['floor']['health']:.2f} s); load average {load:.1f}")
    result(f"new browser session -> first chart of /{args.path} (warm server)", med["ours"]["session"], "s",
           "<= 1.3x the floor", sess_ratio <= 1.3, baseline=med["floor"]["session"], ratio=sess_ratio,
           note=f"a fresh browser context on the warm server; medians of {args.runs}; load average {load:.1f}")


if __name__ == "__main__":
    main()
