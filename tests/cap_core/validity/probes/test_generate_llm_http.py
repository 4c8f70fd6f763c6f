"""The model probe generator against a real OpenAI-compatible HTTP server on 127.0.0.1.

The server edits the claim of each base item according to a scenario word in the
evidence: ``good`` strengthens the quantifier only; ``both`` first strengthens the
quantifier AND drops the hedge (two axes: rejected), and once told why, answers with the
good edit; ``noop`` always returns the claim unchanged (rejected every time).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl

from cap_core.cli.main import main
from cap_core.validity.probes.generate_llm import attempt_summary, generate_probes_llm
from tests.cap_core.judging.openai_server import OpenAIServer

MODEL = "openai/edit-model"
CLAIM = "The survey probably showed that some commuters cycled more, when lanes were protected."
# quantifier strengthening some -> all moves the scope axis only; also dropping "probably" moves strength too
GOOD = "The survey probably showed that all commuters cycled more, when lanes were protected."
BOTH = "The survey showed that all commuters cycled more, when lanes were protected."


class EditServer(OpenAIServer):
    def _completion(self, body: dict, prompt: str, scen: str) -> bytes:
        claim = re.search(r"\[Claim\]\n(.*?)\n\[End of Claim\]", prompt, re.S).group(1)
        told = "rejected by the verifier" in prompt
        edit = {"good": GOOD, "both": GOOD if told else BOTH, "noop": claim}[scen]
        text = f"Here is the edit:\n```json\n{json.dumps({'claim': edit})}\n```"
        out = {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
               "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
               "usage": {"prompt_tokens": 300, "completion_tokens": 30, "total_tokens": 330}}
        return json.dumps(out).encode()


def bases() -> pl.DataFrame:
    return pl.DataFrame({"base_item_id": ["g", "b", "n"], "domain": ["transport"] * 3, "claim": [CLAIM] * 3,
                         "evidence": [f"A city survey of 900 commuters. SCENARIO:{s}" for s in ("good", "both", "noop")]})


def grep_tree(root: Path, needle: str) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


def test_rejections_regeneration_cache_and_no_key(fake_key, tmp_path):
    srv = EditServer()
    try:
        kw = dict(cache_dir=tmp_path / "cache", slots=["quantifier_strengthening"], max_attempts=3,
                  api_base=srv.url)
        probes, attempts, notices = generate_probes_llm(bases(), MODEL, **kw)
        # requests: good 1, both 2 (rejected, then kept), noop 3 (rejected each time) = 6
        assert srv.count() == 6
        per = {b: attempts.filter(pl.col("base_item_id") == b) for b in "gbn"}
        assert per["g"]["status"].to_list() == ["kept"]
        assert per["b"]["status"].to_list() == ["rejected", "kept"]
        assert per["b"]["reason"][0] == "moved both axes" and per["b"]["text"][0] == BOTH
        assert per["n"]["status"].to_list() == ["rejected"] * 3
        assert set(per["n"]["reason"]) == {"moved nothing: text unchanged"}
        summ = attempt_summary(attempts).row(0, named=True)
        assert (summ["attempts"], summ["rejected"], summ["kept"]) == (6, 4, 2)
        assert summ["reasons"] == "moved nothing: text unchanged (3); moved both axes (1)"
        assert "4 answer(s) rejected by the verifier; 2 of 3 slots kept" in notices[1]
        # same probe schema as the rule-based path; the rejected slot keeps its last answer, marked rejected
        assert probes["probe_id"].to_list() == ["g:quantifier_strengthening", "b:quantifier_strengthening",
                                                "n:quantifier_strengthening"]
        assert probes["status"].to_list() == ["kept", "kept", "rejected"]
        assert probes["text"].to_list()[:2] == [GOOD, GOOD] and set(probes["axes_moved"][:2]) == {"scope"}
        # |len(GOOD) - len(CLAIM)| = |"all"| - |"some"| = 1 character
        assert probes["delta_length_pct"][0] == 100.0 / len(CLAIM)
        # rerun: every request from the cache, the server sees nothing new, same output
        probes2, attempts2, notices2 = generate_probes_llm(bases(), MODEL, **kw)
        assert srv.count() == 6 and attempts2["cache_hit"].all()
        assert probes2.equals(probes) and notices2[0].startswith("6 requests: 0 sent, 6 from the cache")
        # CLI: writes probes and the attempt log, served from the same cache
        out, log = tmp_path / "probes.csv", tmp_path / "attempts.csv"
        rc = main(["probes", "generate", "--bases", str(_write(tmp_path)), "--generator", MODEL,
                   "--slot", "quantifier_strengthening", "--api-base", srv.url, "--cache", str(tmp_path / "cache"),
                   "--out", str(out), "--attempts", str(log)])
        assert rc == 0 and srv.count() == 6
        assert pl.read_csv(out)["status"].to_list() == ["kept", "kept", "rejected"]
        assert pl.read_csv(log).height == 6
        # the key reached the server but is nowhere in the cache, the outputs or the log
        assert any(fake_key in a for a in srv.auth)
        assert grep_tree(tmp_path, fake_key) == [] and grep_tree(tmp_path, "CAPSECRET") == []
    finally:
        srv.close()


def _write(tmp_path: Path) -> Path:
    p = tmp_path / "bases.csv"
    bases().write_csv(p)
    return p
