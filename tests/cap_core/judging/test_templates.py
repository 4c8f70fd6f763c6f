"""Every prompt of the project is a versioned template file; its version is part of the cache key."""

from __future__ import annotations

import hashlib
from pathlib import Path

import polars as pl
import pytest

from cap_core.errors import CAPInputError
from cap_core.judging.templates import BUILTIN, PROMPTS_DIR, load_template

REPO = Path(__file__).resolve().parents[3]
PROBES = REPO / "data" / "validity"


def test_every_prompt_file_is_a_builtin_template_with_a_content_hash():
    files = sorted(p.stem for p in PROMPTS_DIR.glob("*.txt"))
    assert files == sorted(BUILTIN)
    for name in BUILTIN:
        tpl = load_template(name)
        body = (PROMPTS_DIR / f"{name}.txt").read_text(encoding="utf-8").partition("\n---\n")[2]
        declared, digest = tpl.version.split("+")
        assert digest == hashlib.sha256(body.encode("utf-8")).hexdigest()[:8] and declared


def test_the_probe_prompts_are_templates(tmp_path):
    from cap_core.judging.cache import JudgeCache
    from cap_core.validity.probes import generate_llm, grade

    grade_t, edit_t, feedback_t = (load_template(n) for n in ("claim_grade", "probe_edit", "probe_feedback"))
    assert grade.render("E", "X") == grade_t.render(evidence="E", claim="X")
    assert grade.TEMPLATE_VERSION == grade_t.version
    assert generate_llm.TEMPLATE_VERSION == f"{edit_t.version}|{feedback_t.version}"
    bases = pl.read_csv(PROBES / "probe_bases.csv").head(1)
    probes = pl.read_csv(PROBES / "probes_builtin.csv")
    probes = probes.filter(pl.col("base_item_id").is_in(bases["base_item_id"].implode()))
    grade.grade_probes(bases, probes, ["localgrade/overlap"], cache_dir=tmp_path / "g")
    generate_llm.generate_probes_llm(bases, cache_dir=tmp_path / "e", slots=["hedging_removal"], max_attempts=1)
    for folder, version in (("g", grade_t.version), ("e", generate_llm.TEMPLATE_VERSION)):
        cache = JudgeCache(tmp_path / folder)
        keys = list(cache._cache.iterkeys())
        assert keys and {cache.get(k)["request"]["template_version"] for k in keys} == {version}
        cache.close()


def test_an_edited_template_gets_a_new_version(tmp_path):
    src = (PROMPTS_DIR / "claim_grade.txt").read_text(encoding="utf-8")
    edited = tmp_path / "claim_grade.txt"
    edited.write_text(src.replace("fully supported", "entirely supported"), encoding="utf-8")
    assert load_template(edited).version != load_template("claim_grade").version
    assert load_template(edited).version.split("+")[0] == load_template("claim_grade").version.split("+")[0]


def test_a_missing_field_names_the_argument():
    with pytest.raises(CAPInputError, match=r"needs a value for 'claim' \[argument `claim`\]"):
        load_template("claim_grade").render(evidence="E")


def test_a_providers_own_prompt_is_in_its_cache_key(tmp_path, monkeypatch):
    import shutil

    from cap_core.judging import templates
    from cap_core.judging.request import JudgeRequest, cache_key

    req = JudgeRequest("smollm/likelihood", (("user", "[Question]\nq\n[End of Question]"),))
    other = JudgeRequest("local/longer", req.messages)
    before = cache_key(req), cache_key(other)
    assert load_template("smollm_rationale").render(question="Q", answer="A") == (
        "Question: Q\nAnswer: A\nIn one sentence, why is this answer correct?")
    copy = tmp_path / "prompts"
    shutil.copytree(PROMPTS_DIR, copy)
    text = (copy / "smollm_rationale.txt").read_text(encoding="utf-8")
    (copy / "smollm_rationale.txt").write_text(text.replace("one sentence", "a sentence"), encoding="utf-8")
    monkeypatch.setattr(templates, "PROMPTS_DIR", copy)
    assert cache_key(req) != before[0] and cache_key(other) == before[1]
