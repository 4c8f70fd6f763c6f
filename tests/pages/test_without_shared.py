"""Every page on a user's machine: a copy of the repository in a folder with no ../shared beside it.

The copy holds the repository's files as git lists them (tracked, plus new files not ignored), so
``data/`` is what ships. Each page of app.py runs under streamlit's AppTest in a subprocess whose
working directory is the copy (so ``cap_core``, ``ui`` and ``data`` are the copy's). The Label audit
page must show the shipped audit figures; the numbers checked are counted here from the raw public
files (the test may read them; the copy may not).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pages.app_pages import pages_in_app

REPO = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import json, sys
import cap_core
from streamlit.testing.v1 import AppTest
from tests.pages.app_pages import pages_in_app
from tests.pages.shown import rendered

out = {"cap_core": cap_core.__file__, "pages": {}}
for page, title in pages_in_app():
    at = AppTest.from_file("app.py", default_timeout=300).run()
    at.switch_page(page).run()
    rec = {"exceptions": [e.value for e in at.exception], "titles": [t.value for t in at.title]}
    if page == "app_pages/label_audit.py":
        rec["errors"] = [rendered(e.value) for e in at.error]
        rec["info"] = [rendered(i.value) for i in at.info]
        rec["captions"] = [rendered(c.value) for c in at.caption]
        rec["table"] = at.dataframe[0].value.to_dict(orient="records") if at.dataframe else []
        at.button(key="la_full").click().run()
        rec["full_exceptions"] = [e.value for e in at.exception]
        rec["full_table"] = at.dataframe[0].value.to_dict(orient="records") if at.dataframe else []
        rec["full_compare"] = next((d.value.to_dict(orient="records") for d in at.dataframe
                                    if "computed (best predictor)" in d.value.columns), [])
    out["pages"][page] = rec
print("RESULT" + json.dumps(out, default=str))
"""


def _repository_files() -> list[str]:
    res = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=REPO,
                         capture_output=True, check=True)
    return [f for f in res.stdout.decode().split("\0") if f and not f.startswith(".venv/")]


@pytest.fixture(scope="module")
def copy_without_shared(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("user_machine") / "cap-studio"
    for rel in _repository_files():
        src = REPO / rel
        if src.is_file():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, root / rel)
    assert not (root.parent / "shared").exists() and not (root / ".." / "shared").exists()
    return root


@pytest.fixture(scope="module")
def run_pages(copy_without_shared) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAP_")}
    env["PYTHONPATH"] = str(copy_without_shared)
    res = subprocess.run([sys.executable, "-c", SCRIPT], cwd=copy_without_shared, env=env, capture_output=True,
                         text=True, timeout=1800)
    assert res.returncode == 0, res.stderr[-3000:]
    line = next(x for x in res.stdout.splitlines() if x.startswith("RESULT"))
    return json.loads(line[len("RESULT"):])


def test_the_copy_runs_its_own_code(run_pages, copy_without_shared):
    assert Path(run_pages["cap_core"]).resolve().is_relative_to(copy_without_shared.resolve())


@pytest.mark.parametrize("page, title", pages_in_app())
def test_every_page_renders_without_shared(run_pages, page, title):
    rec = run_pages["pages"][page]
    assert rec["exceptions"] == [], rec["exceptions"]
    assert rec["titles"] and rec["titles"][0] in {t for _, t in pages_in_app()} | {"CAP Studio"}, rec


def test_label_audit_shows_the_shipped_figures(run_pages, shared_dir):
    rec = run_pages["pages"]["app_pages/label_audit.py"]
    assert rec["errors"] == [] and any("Shipped figures (data/audit)" in i for i in rec["info"])
    table = rec["table"]
    assert {r["label_set"] for r in table} == {"LLMBar Natural", "LLMBar Neighbor", "EvalBiasBench"}
    assert len(table) == 3 * 3 * 2  # sets x predictors x modes
    # units per set and mode, counted from the raw files: paired = pairs, item = two responses per pair
    natural = json.loads((shared_dir / "data/llmbar/Dataset/LLMBar/Natural/dataset.json").read_text())
    neighbor = json.loads((shared_dir / "data/llmbar/Dataset/LLMBar/Adversarial/Neighbor/dataset.json").read_text())
    ebb = json.loads((shared_dir / "data/evalbiasbench/data/evalbiasbench/biasbench.json").read_text())
    pairs = {"LLMBar Natural": len(natural), "LLMBar Neighbor": len(neighbor),
             "EvalBiasBench": sum(len(v) for v in ebb.values())}
    assert pairs == {"LLMBar Natural": 100, "LLMBar Neighbor": 134, "EvalBiasBench": 80}
    for r in table:
        assert r["n_units"] == pairs[r["label_set"]] * (1 if r["mode"] == "paired" else 2), r
        assert r["n_ties"] == 0
    # drill-down caption of LLMBar Natural (paired): the better output is the longer one in L of 100 pairs,
    # L counted from the raw texts; the page knows it only from the shipped lengths
    longer = sum(len(r["output_1" if str(r["label"]) == "1" else "output_2"])
                 > len(r["output_2" if str(r["label"]) == "1" else "output_1"]) for r in natural)
    cap = next(c for c in rec["captions"] if c.startswith("LLMBar Natural, paired mode: length alone gets"))
    assert re.search(rf"the longer response is the better one in {longer} of them", cap), (longer, cap)


def test_full_audit_button_shows_every_shipped_set(run_pages):
    from cap_core.importers.label_sets import PUBLIC_SETS

    rec = run_pages["pages"]["app_pages/label_audit.py"]
    assert rec["full_exceptions"] == []
    assert {r["label_set"] for r in rec["full_table"]} == set(PUBLIC_SETS)
    # the comparison with Validity Table 7 is filled from the shipped RewardBench / RM-Bench rows;
    # the published values are the paper's (RewardBench paired accuracy 62.4, Table 7)
    compare = {(r["label_set"], r["mode"]): r for r in rec["full_compare"]}
    assert ("RewardBench", "paired") in compare and ("RM-Bench chat", "item") in compare
    assert 62.4 in compare[("RewardBench", "paired")].values()


def test_no_product_file_names_the_public_data_folder():
    # the done-when of CAP Studio issue 10: only the default-data build may name ../shared
    pattern = re.compile(r"\.\./shared|[\"'/]shared/(data|published|seeds)")
    hits = []
    for rel in _repository_files():
        if not rel.endswith(".py") or rel.startswith(("tests/", "bench/")):
            continue
        if rel == "cap_core/importers/default_data.py":
            continue
        text = (REPO / rel).read_text(encoding="utf-8")
        hits += [f"{rel}:{i}" for i, line in enumerate(text.splitlines(), 1) if pattern.search(line)]
    assert hits == []
