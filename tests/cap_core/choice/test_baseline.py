"""read_baseline: a locked baseline edited by hand into the wrong shapes is a CAPInputError naming the
file and key (was AttributeError / ValueError / TypeError, exit 1, or a string score silently used)."""

from __future__ import annotations

import json

import pytest

from cap_core.choice.baseline import FORMAT, read_baseline
from cap_core.errors import CAPInputError


def _doc() -> dict:
    return {"format": FORMAT, "benchmark": "b", "fingerprint": "f", "weights": {"C7": 1.0}, "filters": "",
            "level": 0.95, "resamples": 100, "seed": 0,
            "scores": [{"judge": "J", "subset": "all", "source": "computed", "score": 70.0, "ci_low": 65.0,
                        "ci_high": 75.0, "n_items": 10}],
            "judgments": [{"judge": "J", "item_id": "i1", "order": "AB", "verdict": "A", "rationale_supported": None}]}


def test_a_well_formed_baseline_is_read(tmp_path):
    p = tmp_path / "b.json"
    p.write_text(json.dumps(_doc()))
    assert read_baseline(p)["scores"][0]["score"] == 70.0


@pytest.mark.parametrize("key, value", [
    ("scores", "x"), ("scores", [1]), ("scores", [{"judge": "J", "score": "NaN"}]), ("scores", [{"score": 1.0}]),
    ("weights", {"C7": "abc"}), ("weights", [1]), ("weights", {"C7": float("nan")}), ("weights", {"C7": -1}),
    ("judgments", 5), ("judgments", [{"judge": "J"}]), ("level", "high"), ("level", 1.5), ("benchmark", 3),
])
def test_a_baseline_of_the_wrong_shape_names_the_key(tmp_path, key, value):
    doc = _doc()
    doc[key] = value
    p = tmp_path / "b.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(CAPInputError) as err:
        read_baseline(p)
    assert err.value.column == key and str(p) in str(err.value)
