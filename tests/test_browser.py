"""Browser smoke test: the real server, Debian's chromium, the Profiles page draws a polar chart."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.pages.app_pages import pages_in_app

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
NAV = [title for _, title in pages_in_app()]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    port = _free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
           "--server.address", "127.0.0.1", "--server.headless", "true",
           "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                out = proc.stdout.read().decode(errors="replace") if proc.poll() is not None else ""
                pytest.fail(f"streamlit did not start on {url}: {out[-2000:]}")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_profiles_page_shows_a_polar_chart(server):
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(server + "/", wait_until="domcontentloaded")
            links = page.locator('[data-testid="stSidebarNav"] a')
            expect(links).to_have_count(len(NAV), timeout=180000)
            assert [t.strip() for t in links.all_inner_texts()] == NAV
            links.filter(has_text="Profiles").first.click()
            expect(page.get_by_role("heading", name="Profiles").first).to_be_visible(timeout=180000)
            assert page.url.endswith("/judge-profiles")
            chart = page.locator(".js-plotly-plot").first
            expect(chart).to_be_visible(timeout=180000)
            polar = page.locator(".js-plotly-plot .polarlayer .trace.scatter")
            expect(polar.first).to_be_visible(timeout=60000)
            assert polar.count() >= 1
            assert page.get_by_text("Page not found").count() == 0
            assert page.locator('[data-testid="stException"]').count() == 0
        finally:
            browser.close()
