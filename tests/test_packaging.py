"""`pip install .` as a Python user does it: a fresh environment gets the `cap` command (the verbs of
`python -m cap_core`) and `cap-studio`, which serves the dashboard on 127.0.0.1 with the embedded data,
from any folder. The environment reuses the test environment's packages (a .pth file) and installs this
project alone (`--no-deps`), as a wheel built from the checkout."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import polars as pl
import pytest

REPO = Path(__file__).resolve().parents[1]


def _deps_venv(tmp_path_factory, name: str) -> Path:
    """A new virtual environment that sees the test environment's packages through a path line (so not
    the test environment's own editable install of this project, whose hook a path line does not run)."""
    env_dir = tmp_path_factory.mktemp(name)
    base = Path(os.path.realpath(sys.executable))
    subprocess.run([str(base), "-m", "venv", "--without-pip", str(env_dir)], check=True)
    site = next(p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir())
    (env_dir / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages" /
     "_cap_deps.pth").write_text(site + "\n")
    return env_dir


@pytest.fixture(scope="module")
def bare(tmp_path_factory) -> Path:
    """bin/ of an environment with every dependency but not CAP Studio (a worker nobody installed it on)."""
    env_dir = _deps_venv(tmp_path_factory, "bare")
    probe = subprocess.run([str(env_dir / "bin" / "python"), "-c", "import dask, distributed; import cap_core"],
                           capture_output=True, text=True, cwd=env_dir)
    assert "No module named 'cap_core'" in probe.stderr, probe.stderr  # the environment is what it claims
    return env_dir / "bin"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A new virtual environment with this project installed from the checkout; returns its bin/."""
    env_dir = _deps_venv(tmp_path_factory, "venv")
    build = tmp_path_factory.mktemp("src")
    subprocess.run(["git", "clone", "-q", str(REPO), str(build / "cap")], check=True)  # committed files only
    got = subprocess.run([sys.executable, "-m", "pip", "--python", str(env_dir / "bin" / "python"), "install", "-q",
                          "--no-deps", str(build / "cap")],
                         capture_output=True, text=True)
    assert got.returncode == 0, got.stderr[-2000:]
    return env_dir / "bin"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_cap_has_the_verbs_of_the_module(installed, tmp_path):
    out = subprocess.run([str(installed / "cap"), "--help"], capture_output=True, text=True, cwd=tmp_path)
    ref = subprocess.run([sys.executable, "-m", "cap_core", "--help"], capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 0 and out.stdout.startswith("usage: cap ")
    verbs = out.stdout.split("{", 1)[1].split("}", 1)[0]
    assert verbs == ref.stdout.split("{", 1)[1].split("}", 1)[0]


def test_installed_cap_profiles_the_embedded_data_like_the_checkout(installed, tmp_path):
    share = installed.parent / "share" / "cap-studio" / "data" / "default"
    env = {k: v for k, v in os.environ.items() if k != "CAP_DATA_DIR"}
    got = subprocess.run([str(installed / "cap"), "profile", "--data", str(share), "--benchmark", "judgebench",
                          "--bootstrap", "100", "--out", str(tmp_path / "p.csv")], capture_output=True, text=True,
                         cwd=tmp_path, env=env)
    assert got.returncode == 0, got.stderr
    ref = subprocess.run([sys.executable, "-m", "cap_core", "profile", "--data", str(REPO / "data" / "default"),
                          "--benchmark", "judgebench", "--bootstrap", "100", "--out", str(tmp_path / "r.csv")],
                         capture_output=True, text=True, cwd=REPO)
    assert ref.returncode == 0, ref.stderr
    assert pl.read_csv(tmp_path / "p.csv").equals(pl.read_csv(tmp_path / "r.csv"))
    # the installed package finds its data and writes its caches outside any checkout
    probe = subprocess.run([str(installed / "python"), "-c", "import cap_core.config as c; "
                            "print(c.installed(), c.default_data_dir())"], capture_output=True, text=True,
                           cwd=tmp_path, env=env)
    assert probe.stdout.split() == ["True", str(share)]


def test_cap_studio_serves_the_dashboard_on_localhost(installed, tmp_path):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "CAP_DATA_DIR"}
    proc = subprocess.Popen([str(installed / "cap-studio"), "--server.port", str(port), "--server.headless", "true"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 120
        body = None
        while time.time() < deadline and body is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                    body = r.read().decode()
            except OSError:
                time.sleep(0.5)
        assert body == "ok"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
            assert r.status == 200
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    # the command was the server: stopping it stopped the server (a child left running kept the port)
    time.sleep(1)
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2)
    refused = subprocess.run([str(installed / "cap-studio"), "--server.address", "0.0.0.0"], capture_output=True,
                             text=True, cwd=tmp_path)
    assert refused.returncode == 2 and "127.0.0.1" in refused.stderr and "\n" not in refused.stderr.strip()


def _dask(python: Path, *args: str, cwd: Path) -> subprocess.Popen:
    """``python -m dask ARGS`` in ``cwd`` (outside the checkout, nothing of it on the path)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CAP_DATA_DIR")}
    return subprocess.Popen([str(python), "-m", "dask", *args], cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)


def _cluster(python: Path, n_workers: int, folder: Path, worker_python: Path | None = None
             ) -> tuple[str, list[subprocess.Popen]]:
    """A ``dask scheduler`` of ``python`` and ``n_workers`` ``dask worker`` processes (of ``worker_python``,
    default the same) on localhost ports."""
    from distributed import Client

    folder.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs = [_dask(python, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard", cwd=folder)]
    procs += [_dask(worker_python or python, "worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                    "--host", "127.0.0.1", "--local-directory", str(folder / f"w{k}"), cwd=folder)
              for k in range(n_workers)]
    with Client(address, timeout="120s") as client:
        client.wait_for_workers(n_workers, timeout=180)
    return address, procs


def _stop(procs: list[subprocess.Popen]) -> None:
    for p in reversed(procs):
        p.terminate()
    for p in procs:
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def test_dask_workers_given_the_installed_package_give_the_memory_profile(installed, tmp_path):
    # workers started as separate processes, as on a real cluster: `dask scheduler` and two `dask worker`
    # in the environment where CAP Studio was installed (not the checkout on their path), their working
    # folder outside the repository; `cap profile --engine dask --scheduler` must give every number of
    # the memory engine
    address, procs = _cluster(installed / "python", 2, tmp_path / "cluster")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CAP_DATA_DIR")}
    data = REPO / "data" / "default"
    try:
        got = subprocess.run([str(installed / "cap"), "profile", "--data", str(data), "--engine", "dask",
                              "--scheduler", address, "--bootstrap", "200", "--out",
                              str(tmp_path / "dask.csv")], capture_output=True, text=True, cwd=tmp_path, env=env,
                             timeout=900)
    finally:
        _stop(procs)
    assert got.returncode == 0, got.stderr[-3000:]
    ref = subprocess.run([sys.executable, "-m", "cap_core", "profile", "--data", str(data), "--bootstrap", "200",
                          "--out", str(tmp_path / "memory.csv")], capture_output=True, text=True,
                         cwd=REPO)
    assert ref.returncode == 0, ref.stderr
    assert (tmp_path / "dask.csv").read_text() == (tmp_path / "memory.csv").read_text()


def test_a_dask_worker_without_the_package_is_refused_in_one_line(installed, bare, tmp_path):
    # a worker in an environment with every dependency but not CAP Studio cannot run the tasks (the scheduler
    # has the package)
    address, procs = _cluster(installed / "python", 1, tmp_path / "cluster", worker_python=bare / "python")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CAP_DATA_DIR")}
    try:
        got = subprocess.run([str(installed / "cap"), "profile", "--data", str(REPO / "data" / "default"),
                              "--engine", "dask", "--scheduler", address, "--out", str(tmp_path / "p.csv")],
                             capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    finally:
        _stop(procs)
    assert got.returncode == 2
    line = got.stderr.strip()
    assert "\n" not in line and "Traceback" not in line, line
    assert "a Dask worker cannot import cap_core" in line and "got 'tcp://127.0.0.1:" in line  # the worker named
    assert "pip install cap-studio" in line
    assert not (tmp_path / "p.csv").exists()
