"""The sidebar shared by every page: data source, benchmark, judges, condition weights, minimums.

Rendered once per run from ``app.py``. Every widget gets its value through
:func:`ui.state.kept` (keys prefixed ``sb_``), so the values live in a plain dict streamlit
never drops and are written into the widget's key before it is drawn: a run interrupted by
quick navigation cannot reset the sidebar to widget defaults. Values from a shared link
(:mod:`ui.query`) are checked here against what is loaded. The result is a
:class:`Selection` stored in ``st.session_state["selection"]`` for the pages to read.

A condition that no selected judge has on the benchmark has its slider disabled, with the
reason and the benchmarks that do measure it (coverage matrices of the loaded data and of
CAP Table 2); renormalisation over the measured conditions is said once, here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import polars as pl
import streamlit as st

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.profile.weights import PRESETS
from cap_core.schema import CONDITION_IDS, CONDITIONS
from components.labels import entry_label, short_label
from ui import query
from ui.cache import loaders as cache
from ui.state import kept, url_notice
from ui.text import notice

SOURCES = ("embedded default data", "upload", "live run results", "labelled items")  # see ui/cache/live_run.py, ui/cache/labelling.py
CUSTOM = query.CUSTOM
UPLOAD_TYPES = ["csv", "tsv", "jsonl", "json", "parquet"]
DEFAULT_PRESET = "balanced"
#: Lets the Judges chips wrap onto more lines instead of cutting a name to "GRM-Gemma-2B-re…" (a sidebar
#: holds about 18 characters per chip). Selectors are streamlit 1.67's data attributes (``data-tag`` chips,
#: their ``title`` text span, the box around the chips whose max-height would otherwise hide the last
#: line), scoped to this one widget by its key class. The chip's ``title`` keeps the full name as a tooltip.
CHIP_CSS = """<style>
.st-key-sb_entries [role="group"]:has(> [data-testid="stMultiSelectTagsContainer"]) { max-height: none; }
.st-key-sb_entries [data-tag] { height: auto; white-space: normal; }
.st-key-sb_entries [data-tag] > span[title] { white-space: normal; overflow: visible; text-overflow: clip;
  overflow-wrap: anywhere; }
</style>"""


@dataclass
class Selection:
    """What the user has chosen; ``error`` holds a CAPInputError message if loading failed.

    ``weights`` are the slider values (C1..C8); ``measured`` the conditions some selected
    judge has a value for on the benchmark; :attr:`in_force` the weights that enter a score.
    ``filters`` are the parsed condition minimums (``filters_text`` as typed, ``filter_error``
    when it could not be read and the minimums are ignored). ``failures`` is the rule for
    failed judgments (:data:`cap_core.verdicts.FAILURE_RULES`), ``items`` the items judges
    are compared on (:data:`cap_core.choice.pipeline.ITEM_SETS`) and ``item_note`` the
    sentence saying how their item sets differ ('' when they do not).
    """

    ds: Dataset | None = None
    fingerprint: str = ""
    source: str = SOURCES[0]
    benchmark: str | None = None
    labels: list[str] = field(default_factory=list)
    include_published: bool = True
    weights: dict[str, float] = field(default_factory=dict)
    preset: str = DEFAULT_PRESET
    measured: list[str] = field(default_factory=list)
    filters: tuple = ()
    filters_text: str = ""
    filter_error: str | None = None
    failures: str = "count"
    items: str = "shared"
    item_note: str = ""
    error: str | None = None

    @property
    def in_force(self) -> dict[str, float]:
        """Positive weights of measured conditions (what a score uses; renormalised over them)."""
        return {c: w for c, w in self.weights.items() if w > 0 and c in self.measured}


#: Key of the sidebar's weights fragment (preset, sliders and their notes).
WEIGHTS_FRAGMENT = "sb_weights"
#: session_state key naming the fragment of the current page that depends on the weights
#: (:func:`weighted_section`); cleared at the start of every full run.
_PAGE_FRAGMENT = "_sb_weighted_fragment"
#: session_state flag: a weight changed on a page without such a fragment, so the whole page reruns.
_FULL_RERUN = "_sb_weights_full_rerun"


def _rerun_weighted() -> None:
    """After a slider move (a widget callback): rerun only the sidebar's weights and the page's
    weighted section when the page has one (:func:`weighted_section`), else the whole page."""
    page = st.session_state.get(_PAGE_FRAGMENT)
    if page:
        st.rerun([WEIGHTS_FRAGMENT, page])
    _rerun_all()


def _rerun_all() -> None:
    """Ask for a full rerun from a callback of a widget drawn in a fragment (whose default is to rerun
    that fragment alone): the fragment calls ``st.rerun()`` when it starts (:func:`_full_rerun_asked`)."""
    st.session_state[_FULL_RERUN] = True


def _full_rerun_asked() -> None:
    if st.session_state.pop(_FULL_RERUN, False):
        st.rerun()


def _apply_preset() -> None:
    name = st.session_state["sb_preset"]
    if name in PRESETS:
        for c in CONDITION_IDS:
            st.session_state[f"sb_w_{c}"] = PRESETS[name][c]


def _on_preset() -> None:
    # a preset sets every slider and may change what the page draws: the whole page reruns (rare; the
    # slider moves are the quick path)
    _apply_preset()
    _rerun_all()


def use_preset(name: str) -> None:
    """Switch to preset ``name`` and set its weights (a button callback; the whole page reruns)."""
    st.session_state["sb_preset"] = name
    _apply_preset()
    _rerun_all()


def _mark_custom() -> None:
    st.session_state["sb_preset"] = CUSTOM
    _rerun_weighted()


def _load(sel: Selection) -> None:
    if sel.source == SOURCES[0]:
        sel.ds, sel.fingerprint = cache.default_dataset()
        return
    if sel.source == SOURCES[2]:
        from ui.cache.live_run import live_run_dataset

        sel.ds, sel.fingerprint = live_run_dataset()
        if sel.ds is None:
            st.sidebar.info("No live run in this session yet: start one on the Live run page.")
        return
    if sel.source == SOURCES[3]:
        from ui.cache.labelling import labelled_dataset_for_sidebar

        sel.ds, sel.fingerprint = labelled_dataset_for_sidebar()
        if sel.ds is None:
            st.sidebar.info("No labelled pairs with judgments yet: see the Labelling page.")
        return
    from cap_core.importers.formats import FORMATS, KINDS

    kind = st.sidebar.selectbox("Format", KINDS, key=kept("sb_upload_format", KINDS[0], options=list(KINDS)),
                                format_func=lambda k: FORMATS[k].title,
                                help="The kind of files to read: your own tables in CAP's schema, or another "
                                     "tool's output files.")
    if kind == "table":
        _load_tables(sel)
    else:
        _load_tool(sel, kind)
    if sel.ds is not None and sel.ds.notices:
        with st.sidebar.expander(f"Import notices ({len(sel.ds.notices)})"):
            for note in sel.ds.notices:
                st.text(note)


def _load_tables(sel: Selection) -> None:
    """Our table format: items (or one joined table), judgments, declarations; a single JSON file that is
    unmistakably another tool's output is read as that tool's format (said in a caption)."""
    items = st.sidebar.file_uploader("Items table (or one joined table)", type=UPLOAD_TYPES, key="sb_items_file")
    from cap_core.importers.formats import FIELDS

    judg = st.sidebar.file_uploader(FIELDS["judgments"], type=UPLOAD_TYPES, key="sb_judgments_file")
    decl = st.sidebar.file_uploader(FIELDS["declarations"], type=UPLOAD_TYPES, key="sb_decl_file")
    if items is None:
        st.sidebar.info(
            "Upload items and judgments in the documented schema (CSV, TSV, JSONL, JSON or Parquet), "
            "or one table holding judgments joined with their item columns; for another tool's files pick "
            "its format above."
        )
        return
    if judg is None and decl is None and items.name.lower().endswith((".json", ".jsonl")):
        from cap_core.importers.formats import FORMATS

        found = cache.detected_format(((items.name, items.getvalue()),))
        if found is not None and found != "table":
            st.sidebar.caption(f"Read as {FORMATS[found].title} (detected from the file); pick a format above "
                               "to read it otherwise.")
            sel.ds, sel.fingerprint = cache.uploaded_format_dataset(found, ((items.name, items.getvalue()),))
            return
    sel.ds, sel.fingerprint = cache.uploaded_dataset(
        items.name, items.getvalue(),
        judg.name if judg else None, judg.getvalue() if judg else None,
        decl.name if decl else None, decl.getvalue() if decl else None,
    )


#: The text options a tool format may take (keys of cap_core.importers.formats.OPTIONS); their labels are
#: cap_core.importers.formats.FIELDS, which the upload's messages name.
_TEXT_OPTIONS = ("gold_judge", "baseline", "strategies")


def _load_tool(sel: Selection, kind: str) -> None:
    """Another tool's files (several, or a .zip of its folder), the options the format takes, read by the
    registry's reader."""
    from cap_core.importers.formats import FIELDS, FORMATS, OPTIONS

    fmt = FORMATS[kind]
    files = st.sidebar.file_uploader(f"{fmt.title} files", accept_multiple_files=True, key="sb_tool_files",
                                     help=f"{fmt.description}. Upload {fmt.path}"
                                          + (" as a .zip of the folder." if fmt.folder else
                                             " (several files, or a .zip of the folder)."))
    options = tuple((name, st.sidebar.text_input(FIELDS[name], key=kept(f"sb_opt_{name}", ""),
                                                 help=OPTIONS[name]).strip())
                    for name in _TEXT_OPTIONS if name in fmt.options)
    gold = None
    if "gold" in fmt.options:
        up = st.sidebar.file_uploader(FIELDS["gold"], type=UPLOAD_TYPES, key="sb_gold_file",
                                      help=OPTIONS["gold"])
        gold = (up.name, up.getvalue()) if up is not None else None
    if not files:
        st.sidebar.info(f"Upload {fmt.path}" + (" (as a .zip of the folder)." if fmt.folder else "."))
        return
    sel.ds, sel.fingerprint = cache.uploaded_format_dataset(
        kind, tuple((f.name, f.getvalue()) for f in files), options, (("gold", gold),) if gold else ())


def _entries(sel: Selection) -> list[str]:
    labels: list[str] = []
    if sel.ds is not None:
        j = sel.ds.judgments.filter(pl.col("benchmark") == sel.benchmark)
        labels += [entry_label(x, "all", "computed") for x in sorted(j["judge"].unique().to_list())]
    if sel.include_published:
        pub = cache.published_profiles().filter(
            (pl.col("benchmark") == sel.benchmark) & pl.col("primary") & pl.col("condition").is_in(list(CONDITION_IDS))
        )
        keys = pub.select("judge", "subset", "source").unique(maintain_order=True)
        labels += [entry_label(*r) for r in keys.iter_rows()]
    return labels


#: Judges pre-selected on a benchmark at most (the loaded data's own judges first).
MAX_DEFAULT_JUDGES = 10


def default_entries(sel: Selection, options: list[str]) -> list[str]:
    """The judges selected before the user picks: every judge of the loaded data on this
    benchmark (up to :data:`MAX_DEFAULT_JUDGES`), else the first published ones; so a
    leaderboard never opens with the leader hidden, and new data shows its own judges."""
    own: list[str] = []
    if sel.ds is not None:
        names = sel.ds.judgments.filter(pl.col("benchmark") == sel.benchmark)["judge"].unique().to_list()
        labels = {entry_label(n, "all", "computed") for n in names}
        own = [o for o in options if o in labels]
    return (own or options)[:MAX_DEFAULT_JUDGES]


def _follow_new_data(sel: Selection) -> None:
    """After a new upload or a switch of data source, select the loaded data's first benchmark."""
    ss = st.session_state
    if ss.get("_sb_data_fingerprint") == sel.fingerprint:
        return
    ss["_sb_data_fingerprint"] = sel.fingerprint
    if sel.ds is not None and sel.ds.benchmarks:
        ss["sb_benchmark"] = sel.ds.benchmarks[0]


def _apply_link(sel: Selection, benches: list[str]) -> None:
    """The link's benchmark and data fingerprint, checked against what is loaded (once)."""
    fp = query.pending("fp")
    if fp and sel.fingerprint and fp != sel.fingerprint:
        url_notice(f"The link was made on other data (fingerprint {fp}); this session holds {sel.fingerprint}, "
                   "so its numbers may differ.")
    bench = query.pending("bench")
    if bench is not None:
        if bench in benches:
            st.session_state["sb_benchmark"] = bench
        else:
            url_notice(f"Ignored the link's benchmark {bench!r}: not in the loaded data or the published tables.")


def _apply_link_judges(options: list[str]) -> None:
    wanted = query.pending("judge")
    if wanted is None:
        return
    known = [j for j in wanted if j in options]
    gone = [j for j in wanted if j not in options]
    if gone:
        url_notice("Ignored the link's judges not available here: " + ", ".join(short_label(g) for g in gone) + ".")
    if known:
        st.session_state["sb_entries"] = known


def data_location(sel: Selection) -> str:
    """One sentence saying where the selected benchmark's data comes from."""
    bench = short_label(sel.benchmark or "")
    if sel.ds is not None and sel.benchmark in sel.ds.benchmarks:
        where = "Your data" if sel.source == "upload" else sel.source[:1].upper() + sel.source[1:]
        return f"{where}: benchmark {bench}"
    return f"Published CAP tables only: benchmark {bench} is not in the loaded data"


def _measured(sel: Selection) -> dict[str, list[str]]:
    """Set ``sel.measured``; for each condition no selected judge has, the benchmarks that measure it."""
    from ui.cache.choose import measured_conditions, measured_elsewhere

    try:
        sel.measured = measured_conditions(sel) if sel.benchmark and sel.labels else list(CONDITION_IDS)
    except CAPInputError as err:  # the selection cannot be profiled: every page says why, none stops
        sel.measured = list(CONDITION_IDS)
        notice("warning", str(err), where=st.sidebar)
    return {c: measured_elsewhere(sel, c) for c in CONDITION_IDS if c not in sel.measured}


def _weights(sel: Selection, off: dict[str, list[str]]) -> None:
    """The preset, the sliders and what is said about them: a fragment (:data:`WEIGHTS_FRAGMENT`), so a
    weight change reruns this and the page's weighted section only (:func:`weighted_section`). On
    such a rerun ``sel`` (the stored selection) is updated in place; ``off`` maps the conditions no
    selected judge has to where they are measured (computed by the full run: no weight changes it)."""
    from cap_core.choice.leaderboard import condition_ranges
    from ui.cache.choose import closest_preset

    _full_rerun_asked()
    st.markdown("**Condition weights**")
    sel.preset = st.selectbox("Preset (CAP §5)", list(PRESETS) + [CUSTOM], key=kept("sb_preset", DEFAULT_PRESET,
                              options=list(PRESETS) + [CUSTOM]), on_change=_on_preset)
    for c in CONDITION_IDS:
        where = off.get(c, [])
        why = (f"No selected judge has {c} on {short_label(sel.benchmark or '')}, so its weight does not count "
               "here (it is kept for other benchmarks). "
               + (f"Measured on: {', '.join(where)}." if where else "No loaded or published benchmark measures it."))
        sel.weights[c] = st.slider(
            f"{c} {CONDITIONS[c][0]}" + (" (not measured here)" if c in off else ""), 0.0, query.MAX_WEIGHT,
            step=0.1, key=kept(f"sb_w_{c}", PRESETS[DEFAULT_PRESET][c]), on_change=_mark_custom,
            help=why if c in off else "Weights are relative: 2, 1, 2 weighs the first and last twice the middle.",
        )
    if off and sel.labels:
        st.caption(f"{condition_ranges(list(off))}: not measured for the selected judges on this benchmark (hover "
                   "a slider for where it is measured); their weights do not count here.")
    if sel.in_force:
        from cap_core.profile.weights import weight_shares

        shares = weight_shares(sel.in_force, sel.in_force)
        st.caption("In force here (weights renormalised over the measured conditions): "
                   + ", ".join(f"{c} {100 * s:.0f}%" for c, s in shares.items() if s > 0) + " of the score.")
    if not sel.in_force and sel.labels and any(w > 0 for w in sel.weights.values()):
        if sel.preset in PRESETS:
            near = closest_preset(sel.preset, sel.measured)
            st.warning(f"Preset '{sel.preset}' weighs only conditions these judges lack here; no score."
                       + (f" Closest preset that works: '{near}'." if near else ""))
            if near:
                st.button(f"Use '{near}'", key="sb_use_closest", on_click=use_preset, args=(near,))
        else:
            st.warning("No weighted condition is measured for these judges: raise "
                       f"{condition_ranges(sel.measured) or 'a measured condition'}.")


_weights_fragment = st.fragment(_weights, key=WEIGHTS_FRAGMENT)


def weighted_section(key: str, body: Callable[[Selection], None]) -> None:
    """Draw ``body(selection)`` here as the page's part that depends on the weights.

    It is a fragment (key ``key``, page-prefixed): a slider or preset change reruns only it and
    the sidebar's weights, not the router, the other sidebar widgets or the rest of the page;
    the view is written into the URL (:func:`ui.query.sync`) after each of its runs. ``body``
    must not call ``st.stop`` (it would stop the whole page on a full run): return instead.
    Anything drawn outside ``body`` must not depend on the weights or the preset.
    """
    def run() -> None:
        _full_rerun_asked()  # a button of the section that changes the preset (use_preset)
        try:
            body(st.session_state["selection"])
        finally:
            query.sync()

    st.fragment(run, key=key)()
    st.session_state[_PAGE_FRAGMENT] = key


#: The sidebar's two scoring rules: widget key -> (label, options with their words, help).
FAILURE_WORDS = {"count": "count as wrong", "exclude": "leave out (lower n)"}
ITEM_WORDS = {"shared": "items all selected judges judged", "own": "each judge's own items"}


def _rules(sb, sel: Selection) -> None:
    """Failed judgments counted or left out; with judges whose item sets differ, shared or own items."""
    from ui.cache.choose import item_coverage_of, item_note

    sel.failures = sb.radio(
        "Failed judgments", list(FAILURE_WORDS), format_func=FAILURE_WORDS.get, horizontal=True,
        key=kept("sb_failures", "count", options=list(FAILURE_WORDS)),
        help="An unparsed verdict or a missing order: 'count as wrong' keeps the item in n, never correct; "
             "'leave out' drops it from n (CAP App. L: API and parse failures lower n). Ties always count.")
    sel.items = "shared"
    cov = item_coverage_of(sel)
    if cov is not None and cov.differ and cov.n_shared == 0:
        # nothing to compare on: each judge on its own items, said plainly (a shared comparison cannot exist)
        sel.items = "own"
        sel.item_note = cov.sentence("own")
        notice("caption", "The selected judges share no item" + (" judged without a failed verdict"
               if sel.failures == "exclude" else "") + ", so each is scored on its own items. " + sel.item_note,
               where=sb)
    elif cov is not None and cov.differ:  # the selected judges' item sets differ: the choice is the user's
        sel.items = sb.radio("Compare judges on", list(ITEM_WORDS), format_func=ITEM_WORDS.get,
                             key=kept("sb_items", "shared", options=list(ITEM_WORDS)))
        sel.item_note = item_note(sel)
        notice("caption", sel.item_note, where=sb)


def _minimums(sb, sel: Selection) -> None:
    from cap_core.choice.filters import format_filters, parse_filters

    text = sb.text_input("Minimum per condition", key=kept("sb_min", ""), placeholder="e.g. C7=60, C1.low=50",
                         help="Hide judges below a minimum: C7=60 on the value, C7.low=60 on the interval's lower "
                         "bound (percent). Comma-separated. Travels with the link, the exports and `choose --min`.")
    try:
        sel.filters = parse_filters(text)
        sel.filters_text = format_filters(sel.filters)
    except CAPInputError as err:
        sel.filter_error = f"Minimums ignored: {err.problem}. Write e.g. C7=60, C1.low=50."
        notice("warning", sel.filter_error, where=sb)


def render() -> Selection:
    """Draw the sidebar and return (and store) the current :class:`Selection`."""
    query.restore()
    st.session_state.pop(_PAGE_FRAGMENT, None)  # set again by the page if it has a weighted section
    st.session_state.pop(_FULL_RERUN, None)
    sb = st.sidebar
    sel = Selection()
    sel.source = sb.radio("Dataset", SOURCES, key=kept("sb_source", SOURCES[0], options=list(SOURCES)))
    try:
        _load(sel)
    except CAPInputError as err:
        sel.error = str(err)
    sel.include_published = sb.toggle("Include published CAP judges", key=kept("sb_published", True))
    benches = list(sel.ds.benchmarks) if sel.ds is not None else []
    if sel.include_published:
        benches += [b for b in cache.published_profiles()["benchmark"].unique().sort().to_list() if b not in benches]
    if benches:
        _follow_new_data(sel)
        _apply_link(sel, benches)
        sel.benchmark = sb.selectbox("Benchmark", benches, key=kept("sb_benchmark", benches[0], options=benches),
                                     format_func=short_label)
        notice("caption", data_location(sel), where=sb)
        options = _entries(sel)
        _apply_link_judges(options)
        sb.html(CHIP_CSS)  # style only: streamlit puts it in the event container (no space taken)
        sel.labels = sb.multiselect("Judges", options, key=kept("sb_entries", default_entries(sel, options),
                                                                 options=options, follows=sel.fingerprint),
                                    format_func=short_label)
        if len(options) > len(sel.labels):
            sb.caption(f"{len(sel.labels)} of {len(options)} judges of this benchmark selected.")
        _rules(sb, sel)
    off = _measured(sel)
    with sb:
        _weights_fragment(sel, off)
    _minimums(sb, sel)
    st.session_state["selection"] = sel
    return sel


def get_selection() -> Selection:
    """The selection stored by :func:`render`; stops the page with the error if loading failed."""
    sel = st.session_state.get("selection") or Selection(error="the sidebar has not been drawn yet")
    if sel.error:
        notice("error", sel.error)
        st.stop()
    return sel
