"""Coverage heatmap: status codes, distinct colours, legend, operator on hover."""

from pathlib import Path

import polars as pl

from cap_core.schema import CONDITION_IDS, STATUSES
from components.coverage_heatmap import STATUS_ABBREV, STATUS_COLOURS, coverage_heatmap

COVERAGE = Path(__file__).resolve().parents[2] / ".." / "shared" / "published" / "cap_coverage.csv"


def published() -> pl.DataFrame:
    return pl.read_csv(COVERAGE)


def test_published_table2_cells():
    cov = published()
    fig = coverage_heatmap(cov)
    hm = fig.data[0]
    benches = list(hm.y)
    assert benches == sorted(cov["benchmark"].unique().to_list())
    assert list(hm.x) == list(CONDITION_IDS)
    z = [list(r) for r in hm.z]
    text = [list(r) for r in hm.text]
    jb = benches.index("judgebench")
    # CAP Table 2, JudgeBench: C1/C2 approximate, C3/C4 unavailable, C7 direct; C5 carries a dagger
    assert z[jb][0] == STATUSES.index("approximate") and z[jb][2] == STATUSES.index("unavailable")
    assert z[jb][6] == STATUSES.index("direct")
    assert text[jb][4].endswith("†")
    je = benches.index("judgereva")
    assert all(v == 0 for v in z[je])  # every judgerEva cell is direct
    op = cov.filter((pl.col("benchmark") == "judgereva") & (pl.col("condition") == "C1"))["operator"][0]
    assert op in hm.customdata[je][0]


def test_distinct_colours_and_legend():
    fig = coverage_heatmap(published())
    assert len(set(STATUS_COLOURS.values())) == len(STATUSES)
    legend = [t for t in fig.data[1:] if t.showlegend]
    assert [t.name for t in legend] == ["dir = direct", "appr = approximate", "aug = augmented", "– = unavailable"]
    assert [t.marker.color for t in legend] == [STATUS_COLOURS[s] for s in STATUSES]
    # discrete scale: code i maps inside its own colour band
    scale = fig.data[0].colorscale
    for i, s in enumerate(STATUSES):
        pos = (i + 0.5) / len(STATUSES)
        band = [c for (p0, c), (p1, _) in zip(scale[:-1], scale[1:]) if p0 <= pos <= p1 and c == _]
        assert band == [STATUS_COLOURS[s]]


def test_missing_cell_is_unavailable():
    cov = pl.DataFrame({"benchmark": ["b"], "condition": ["C7"], "status": ["direct"], "operator": ["order swap"]})
    fig = coverage_heatmap(cov)
    z = list(fig.data[0].z[0])
    assert z == [3, 3, 3, 3, 3, 3, 0, 3]


def test_cell_text_is_short_and_legible():
    fig = coverage_heatmap(published())
    hm = fig.data[0]
    cells = [v.rstrip("†") for row in hm.text for v in row]
    assert set(cells) <= set(STATUS_ABBREV.values()) and max(len(v) for v in cells) <= 4
    assert hm.textfont.size >= 12
    # the full status stays in the hover text: JudgeBench C1 is approximate (CAP Table 2)
    jb = list(hm.y).index("judgebench")
    assert "approximate" in hm.customdata[jb][0] and hm.text[jb][0] == "appr"
    assert fig.layout.height >= 48 * len(hm.y)
