"""Browser smoke test: a fresh server, Debian's chromium, our navigation only, quick clicks, a
setting kept across pages and a download that leaves the page alone.

Playwright waits on real page states only (the router's links, streamlit's
``data-test-script-state`` on the app root, headings, charts), never on fixed sleeps. A
MutationObserver installed before the first byte records whether streamlit's own page list
(``stSidebarNav``, the legacy list of file stems) ever appears. Screenshots land in the test's
tmp folder (``CAP_SCREENSHOTS`` names another folder) for a person to look at.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from tests.pages.app_pages import pages_in_app

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
NAV = [title for _, title in pages_in_app()]
LINKS = '.st-key-cap_nav [data-testid="stPageLink-NavLink"]'
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
SLOW = 180_000  # ms: a loaded machine with a cold cache

WATCH_LEGACY_NAV = """
window.__legacyNav = [];
new MutationObserver(() => {
  const nav = document.querySelector('[data-testid="stSidebarNav"]');
  if (nav && nav.innerText.trim()) window.__legacyNav.push(nav.innerText.trim());
}).observe(document, {childList: true, subtree: true});
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    """A fresh ``streamlit run app.py`` process (the first test below is its first visitor)."""
    yield from _serve()


def _serve(env: dict[str, str] | None = None):
    port = _free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
           "--server.address", "127.0.0.1", "--server.headless", "true",
           "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:  # poll the health endpoint until the server answers (no page exists before that)
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                out = proc.stdout.read().decode(errors="replace") if proc.poll() is not None else ""
                pytest.fail(f"streamlit did not start on {url}: {out[-2000:]}")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def shots(tmp_path) -> Path:
    folder = Path(os.environ.get("CAP_SCREENSHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _open(browser, url: str) -> Page:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.add_init_script(WATCH_LEGACY_NAV)
    page.goto(url, wait_until="commit")
    return page


def _clean(page: Page) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.get_by_text("Page not found").count() == 0
    assert page.evaluate("window.__legacyNav") == []  # streamlit's own page list never showed


def _go(page: Page, title: str) -> None:
    page.locator(LINKS).filter(has_text=title).first.click()
    expect(page.get_by_role("heading", name=title).first).to_be_visible(timeout=SLOW)
    expect(page.locator(IDLE)).to_have_count(1, timeout=SLOW)


def _press_right_until(page: Page, slider, value: str, key: str) -> None:
    """Move a focused slider one step right and wait until the server has ``value``.

    A key press that lands while a rerun replaces the element is lost (the slider loses
    focus), as it would be for a person; the press is then repeated, up to five times. The
    slider shows a value before it sends it (after a short pause): the server has it once the
    page's URL holds it (``s.<key>=<value>``, written by the rerun that read it).
    """
    on_server = re.compile(rf"[?&]s\.{re.escape(key)}={re.escape(value)}(&|$)")
    for _ in range(5):
        expect(page.locator(IDLE)).to_have_count(1, timeout=SLOW)
        if float(slider.input_value()) < float(value):  # else a late press already moved it
            slider.focus()
            page.keyboard.press("ArrowRight")
        try:
            expect(slider).to_have_value(value, timeout=10_000)
            expect(page).to_have_url(on_server, timeout=SLOW)
            return
        except AssertionError:
            continue
    raise AssertionError(f"the slider {key} did not reach {value} on the server: {slider.input_value()}, {page.url}")


@pytest.fixture
def fresh_server():
    """A second fresh server process, for the deep-link test (its first request is a deep link)."""
    yield from _serve()


def test_fresh_server_deep_link_is_the_router_page(fresh_server, browser, shots):
    # the very first request of a new process names a page: no "Page not found", no page run
    # without the router (streamlit's legacy mode is triggered only by a folder named pages/)
    page = _open(browser, fresh_server + "/judge-cascades")  # an old path: switches to /cascades
    expect(page.get_by_role("heading", name="Cascades").first).to_be_visible(timeout=SLOW)
    expect(page.locator(LINKS)).to_have_count(len(NAV), timeout=SLOW)
    expect(page.locator('[data-testid="stSidebar"]').get_by_text("Dataset")).to_be_visible()
    expect(page.locator(IDLE)).to_have_count(1, timeout=SLOW)
    _clean(page)
    page.close()


def test_fresh_server_first_click_and_a_second_session(server, browser, shots):
    page = _open(browser, server + "/")
    other = _open(browser, server + "/")  # a second session starts on Overview (st.dataframe imports pandas)
    links = page.locator(LINKS)
    expect(links).to_have_count(len(NAV), timeout=SLOW)  # the router's links: drawn by its first run
    assert [t.strip() for t in links.all_inner_texts()] == NAV
    links.filter(has_text="Profiles").first.click()  # at once, while the other session may still be loading
    expect(page.get_by_role("heading", name="Profiles").first).to_be_visible(timeout=SLOW)
    assert urlparse(page.url).path.endswith("/profiles")  # the path is the title; the query holds the view
    polar = page.locator(".js-plotly-plot .polarlayer .trace.scatter")
    expect(polar.first).to_be_visible(timeout=SLOW)
    expect(page.locator('[data-testid="stSidebar"]').get_by_text("Dataset")).to_be_visible()  # router sidebar
    expect(page.locator(IDLE)).to_have_count(1, timeout=SLOW)
    _clean(page)
    page.screenshot(path=str(shots / "profiles.png"), full_page=True)
    expect(other.get_by_role("heading", name="CAP Studio").first).to_be_visible(timeout=SLOW)
    expect(other.locator(IDLE)).to_have_count(1, timeout=SLOW)
    _clean(other)
    other.close()
    page.close()


def test_pages_draw_and_a_download_keeps_the_page(server, browser, shots):
    page = _open(browser, server + "/")
    expect(page.locator(LINKS)).to_have_count(len(NAV), timeout=SLOW)
    _go(page, "Cascades")
    tau = page.locator(".st-key-cas_tau input[type=range]")
    expect(tau).to_have_value("0.5", timeout=SLOW)
    for step in ("0.51", "0.52", "0.53"):  # one key press, one rerun, per step
        _press_right_until(page, tau, step, "cas_tau")
    moved = tau.input_value()
    expect(page.locator(IDLE)).to_have_count(1, timeout=SLOW)
    for title, name in (("Frontiers", "frontiers"), ("Stress", "stress"), ("Cascades", "cascades")):
        _go(page, title)
        expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=SLOW)
        _clean(page)
        page.screenshot(path=str(shots / f"{name}.png"), full_page=True)
    expect(tau).to_have_value(moved)  # kept while the user was on other pages
    _go(page, "Export")
    with page.expect_download(timeout=SLOW) as dl:
        page.get_by_role("button", name="Download CSV").first.click()
    assert dl.value.suggested_filename.endswith(".csv")
    expect(page.get_by_role("heading", name="Export").first).to_be_visible()
    expect(page.locator(IDLE)).to_have_count(1, timeout=SLOW)
    _clean(page)
    page.close()


def test_the_chart_library_is_fetched_ahead_and_takes_no_room(server, browser):
    # ui.preload: the router's first sidebar element imports plotly.js while the server computes the
    # page, so a page without any chart (the glossary) has fetched it too; its hidden container and
    # the wrapper around it take no room (the sidebar's links start where they would without it)
    page = _open(browser, server + "/glossary")
    expect(page.get_by_role("heading", name="Glossary").first).to_be_visible(timeout=SLOW)
    expect(page.locator(IDLE)).to_have_count(1, timeout=SLOW)
    assert page.locator('[data-testid="stPlotlyChart"]').count() == 0
    # the import runs once the hidden element's script does (after the page may look done): wait for it
    page.wait_for_function("() => performance.getEntriesByType('resource')"
                           ".some(e => /\\/PlotlyChart\\.[\\w-]+\\.js$/.test(e.name))", timeout=SLOW)
    box = page.locator(".st-key-cap_preload")
    assert box.count() == 1 and box.bounding_box() is None  # display: none
    wrapper = page.locator('[data-testid="stLayoutWrapper"]:has(> .st-key-cap_preload)')
    assert wrapper.count() == 1 and wrapper.bounding_box() is None
    _clean(page)
    page.close()


LEADER = '[data-testid="stMarkdownContainer"] strong'


def _sentence(page: Page) -> str:
    line = page.locator(LEADER).filter(has_text="For these weights").first
    expect(line).to_be_visible(timeout=SLOW)
    return line.inner_text()


def test_shared_url_in_a_fresh_browser_context_shows_the_same_leader(server, browser, shots):
    # a user opens Choose with a preset typed into the link; the URL then holds the whole view
    page = _open(browser, server + "/choose?preset=adversarial+traffic&bench=judgebench")
    expect(page.get_by_role("heading", name="Choose a judge").first).to_be_visible(timeout=SLOW)
    expect(page.locator(IDLE)).to_have_count(1, timeout=SLOW)
    first = _sentence(page)
    expect(page).to_have_url(re.compile(r"judge="), timeout=SLOW)  # judges, source, fingerprint written back
    shared = page.url
    assert urlparse(shared).path.endswith("/choose") and "preset=adversarial" in shared
    _clean(page)
    page.screenshot(path=str(shots / "choose.png"), full_page=True)
    # a new browser context: no cookies, no session, nothing but the link
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    other = ctx.new_page()
    other.add_init_script(WATCH_LEGACY_NAV)
    other.goto(shared, wait_until="commit")
    expect(other.get_by_role("heading", name="Choose a judge").first).to_be_visible(timeout=SLOW)
    expect(other.locator(IDLE)).to_have_count(1, timeout=SLOW)
    assert _sentence(other) == first
    expect(other.get_by_text("Preset adversarial traffic: C7 1 (100%).")).to_be_visible()  # weights in force
    _clean(other)
    # reload keeps the view
    other.reload(wait_until="commit")
    expect(other.locator(IDLE)).to_have_count(1, timeout=SLOW)
    assert _sentence(other) == first
    ctx.close()
    page.close()


def test_sidebar_judge_chips_show_whole_names(server, browser, shots):
    """The Judges chips wrap instead of cutting a name ("GRM-Gemma-2B-re…"), and no chip is hidden."""
    page = _open(browser, server + "/")
    expect(page.locator(IDLE)).to_have_count(1, timeout=SLOW)
    chips = page.locator('.st-key-sb_entries [data-tag] > span[title]')
    expect(chips.first).to_be_visible(timeout=SLOW)
    chips.first.scroll_into_view_if_needed()
    page.locator(".st-key-sb_entries").screenshot(path=str(shots / "sidebar_judges.png"))
    names = chips.evaluate_all("els => els.map(e => [e.title, e.innerText, e.scrollWidth <= e.clientWidth, "
                               "e.scrollHeight <= e.clientHeight + 1])")
    assert names and all(title == text and fits_w and fits_h for title, text, fits_w, fits_h in names), names
    box = page.locator('.st-key-sb_entries [data-testid="stMultiSelectTagsContainer"]').first
    assert box.evaluate("e => e.scrollHeight <= e.clientHeight + 1")  # the last chip is not scrolled away
    _clean(page)
    page.close()


def test_link_text_shows_as_text_not_as_a_link_or_an_image(server, browser, shots):
    """Issue 21, item 2: ``?src=[Session expired](http://…)`` drew a link in the notice and
    ``![x](http://…)`` a remote image. In chromium, with streamlit's own Markdown renderer, the
    notice shows the link's text literally: no anchor, no image, no autolink to the host."""
    from urllib.parse import quote

    host = "evil.invalid"
    link = (f"/choose?src={quote(f'[Session expired](http://{host}/login)')}"
            f"&bench={quote(f'![x](http://{host}/i.png)')}&min={quote(f'see www.{host} or http://{host}/a')}")
    page = _open(browser, server + link)
    expect(page.get_by_role("heading", name="Choose a judge").first).to_be_visible(timeout=SLOW)
    expect(page.locator(IDLE)).to_have_count(1, timeout=SLOW)
    notice = page.locator('[data-testid="stAlert"]').filter(has_text="could not be restored").first
    expect(notice).to_be_visible(timeout=SLOW)
    text = notice.inner_text().replace("\u200b", "")  # the invisible breaks that stop autolinks (ui.text.plain)
    assert f"[Session expired](http://{host}/login)" in text and f"![x](http://{host}/i.png)" in text
    assert f"www.{host}" in text
    anchors = page.locator(f'a[href*="{host}"]').evaluate_all("els => els.map(e => e.outerHTML)")
    assert anchors == [], anchors
    assert page.locator(f'img[src*="{host}"]').count() == 0
    _clean(page)
    notice.screenshot(path=str(shots / "link_notice.png"))
    page.close()


#: A judge name holding plotly's markup (issue 19, finding 3): drawn as a link on the Choose chart's axis.
EVIL_JUDGE = '<a href="http://evil.invalid/login">Session expired: click</a>'


@pytest.fixture(scope="module")
def evil_server(tmp_path_factory):
    """A server whose embedded default data is a small dataset with names holding markup (the rest of the
    embedded data is the checkout's)."""
    import polars as pl

    root = tmp_path_factory.mktemp("evil_data")
    rows = []
    judges = {EVIL_JUDGE: "BBBA", "<img src=x>": "BAAB", "plain judge": "ABAB"}
    for k in range(12):
        gold = "AB"[k % 2]
        for judge, pattern in judges.items():
            for order, pick in zip(("AB", "BA"), pattern[(k % 2) * 2:(k % 2) * 2 + 2]):
                rows.append({"judge": judge, "benchmark": "<b>bench</b>", "item_id": f"it{k}", "order": order,
                             "verdict": pick, "gold": gold, "subset": "<i>sub</i>" if k % 3 else "plain"})
    pl.DataFrame(rows).write_csv(root / "joined.csv")
    data = root / "data"
    got = subprocess.run([sys.executable, "-m", "cap_core", "import", "table", str(root / "joined.csv"), "--out",
                          str(data / "default")], capture_output=True, text=True, cwd=REPO)
    assert got.returncode == 0, got.stderr
    for other in (REPO / "data").iterdir():
        if other.name != "default":
            (data / other.name).symlink_to(other)
    yield from _serve({"CAP_DATA_DIR": str(data)})


def test_choose_chart_draws_a_judge_name_as_text_not_a_link(evil_server, browser, shots):
    """The Choose chart's y-axis label of a judge named ``<a href=…>…</a>`` is text: no anchor (plotly draws
    an SVG ``<a xlink:href>`` for markup) points to the host, and the name's characters are on the axis."""
    page = _open(browser, evil_server + "/choose")
    expect(page.get_by_role("heading", name="Choose a judge").first).to_be_visible(timeout=SLOW)
    expect(page.locator(IDLE)).to_have_count(1, timeout=SLOW)
    chart = page.locator(".js-plotly-plot").first
    expect(chart).to_be_visible(timeout=SLOW)
    links = page.evaluate("""() => [...document.querySelectorAll('a')]
        .map(a => a.getAttribute('href') || a.getAttribute('xlink:href') || '')
        .filter(h => h.includes('evil.invalid'))""")
    assert links == [], links
    ticks = chart.locator(".ytick text").evaluate_all("els => els.map(e => e.textContent)")  # SVG: no innerText
    assert any(t.startswith('<a href="http://evil.invalid/login">') for t in ticks), ticks
    _clean(page)
    chart.screenshot(path=str(shots / "choose_evil_names.png"))
    page.close()


def test_overview_paths_and_no_request_leaves_this_machine(server, browser, shots):
    # /overview and /home lead to the Overview (a default page is served at /); every request a page makes
    # goes to the local server or is inline data (the favicon is our own SVG, not a font from the web)
    page = browser.new_page()
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    for path in ("/overview", "/home"):
        page.goto(server + path, wait_until="commit")
        expect(page.get_by_role("heading", name="CAP Studio").first).to_be_visible(timeout=SLOW)
        expect(page.get_by_text("Page not found")).to_have_count(0)
    page.goto(server + "/choose", wait_until="commit")
    expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=SLOW)
    expect(page.locator(IDLE)).to_have_count(1, timeout=SLOW)
    away = [u for u in asked if not u.startswith((server, "data:", "blob:"))]
    assert asked and not away, away[:5]
    page.close()
