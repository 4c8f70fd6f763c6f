"""The view in the URL: ``st.query_params`` holds the sidebar and the current page's settings.

Parameters (all optional; order does not matter)::

    src     data source: default | upload | live | labelled
    fp      fingerprint of the loaded data (a notice when the data now differ)
    bench   benchmark
    judge   one per selected judge (repeated), the entry labels of the sidebar
    pub     1 / 0: published CAP judges included
    preset  a weight preset (CAP §5) ...
    w       ... or custom weights, e.g. C1=2,C7=1 (slider values, 0 to MAX_WEIGHT in steps of 0.1)
    min     condition minimums, e.g. C7=60,C1.low=50 (:mod:`cap_core.choice.filters`)
    fail    count | exclude: the rule for failed judgments (:data:`cap_core.verdicts.FAILURE_RULES`)
    items   shared | own: the items judges are compared on (:data:`cap_core.choice.pipeline.ITEM_SETS`)
    s.KEY   a setting of the current page (its widget key, JSON value), e.g. s.cas_tau=0.53,
            only for the settings of :data:`LINK_SETTINGS`

:func:`restore` reads the URL once per browser session, before the sidebar is drawn (a
reload starts a new session, so it restores too); :func:`sync` writes the current view
back after every run. A parameter that is unknown, malformed, too long or no longer valid
(a judge not in the data, a benchmark that is gone, a value outside a widget's range) is
ignored and said once at the top of the page (:func:`show_notices`, as plain text: a
link's text never renders as Markdown); it never stops the page.

**What a link may set.** A link is written by someone else: it may only choose what is
*shown*. The page settings it may set are listed per page in :data:`LINK_SETTINGS` (an
allow-list: a page not listed, such as a new one, takes nothing from a link). Nothing that
sends requests or spends money is on it: endpoints (which may carry a key), model names,
the judges a run calls, budgets, concurrency, repeats, the items a run sends, paths on the
disk; those settings are neither read from a link nor written into one.
"""

from __future__ import annotations

import json
import math
from typing import Any

import streamlit as st

from ui import state

__all__ = ["SOURCE_CODES", "LINK_SETTINGS", "link_may_set", "restore", "sync", "show_notices", "pending",
           "weights_text", "parse_slider_weights", "slider_weights_problem"]

#: URL code of each data source of the sidebar.
SOURCE_CODES = {"default": "embedded default data", "upload": "upload", "live": "live run results",
                "labelled": "labelled items"}
_CODE_OF = {v: k for k, v in SOURCE_CODES.items()}
_DONE = "_q_restored"
_PENDING = "_q_pending"
_SIDEBAR = ("src", "fp", "bench", "judge", "pub", "preset", "w", "min", "fail", "items")
#: URL parameter -> (sidebar key, allowed values) of the sidebar's choices among a few named rules.
_CHOICES = {"fail": ("sb_failures", ("count", "exclude")), "items": ("sb_items", ("shared", "own"))}
_PREFIX = "s."
#: Page settings a link may set and holds, per page (its URL path): widget keys, or a prefix ending in
#: ``*`` (``fr_tau_*``: one threshold per judge). Only what a page shows; never what makes a request or
#: spends money (module notes). Every other ``s.KEY`` is ignored with a notice and never written.
LINK_SETTINGS: dict[str, frozenset[str]] = {
    "choose": frozenset({"cho_cond"}),
    "compare-judges": frozenset({"cmp_a", "cmp_b", "cmp_correction", "cmp_view", "cmp_flag"}),
    "stress": frozenset({"st_d_base", "st_d_base_sub", "st_d_str", "st_d_str_sub", "st_base", "st_stressed"}),
    "consistency": frozenset({"cs_condition", "cs_view"}),
    "cascades": frozenset({"cas_src", "cas_cheap", "cas_fb", "cas_tau"}),
    # not fr_models: the judges that grade the built-in probes live (hosted models cost money)
    "frontiers": frozenset({"fr_source", "fr_min_s", "fr_s_high", "fr_r_high", "fr_tau_*", "fr_pub", "fr_zoom",
                            "fr_slot_pub", "fr_min_agree"}),
    "label-audit": frozenset({"la_sets", "la_perm", "la_mode", "la_drill"}),
    "labelling": frozenset({"lab_src", "lab_seed", "lab_jsrc", "lab_ja", "lab_jb", "lab_eff", "lab_margin"}),
    # where the items come from only: never the judges, models, endpoint, evaluator, budgets, counts
    "live-run": frozenset({"lr_src", "lr_bench"}),
}
#: Longest URL value read (characters): a page setting or a sidebar parameter; judges are counted apart.
MAX_VALUE_LENGTH = 300
#: Most judges a link names.
MAX_LINK_JUDGES = 200
#: The preset name of hand-set weights (the sidebar's last preset option).
CUSTOM = "custom"
#: Largest value of a condition-weight slider: weights are relative, so 0-5 in steps of 0.1 holds ratios
#: such as 2:1:2 or 3:1 as well as every preset (CAP §5).
MAX_WEIGHT = 5.0


def link_may_set(key: str, page: str | None = None) -> bool:
    """True if a link may set the page setting ``key`` on ``page`` (a URL path), or on any page when
    ``page`` is None (:data:`LINK_SETTINGS`)."""
    pages = LINK_SETTINGS.values() if page is None else [LINK_SETTINGS.get(page, frozenset())]
    return any(key in allowed or any(a.endswith("*") and key.startswith(a[:-1]) for a in allowed)
               for allowed in pages)


def _plain_value(value: object) -> bool:
    """A JSON value a widget can hold: text, a finite number, a bool, or a flat list of text and finite
    numbers (``Infinity`` and ``NaN``, which Python's JSON reader accepts, are no widget's value)."""
    def one(x: object) -> bool:
        return isinstance(x, (str, int)) or (isinstance(x, float) and math.isfinite(x))

    return isinstance(value, bool) or one(value) or (
        isinstance(value, list) and all(one(x) and not isinstance(x, bool) for x in value))


def weights_text(weights: dict[str, float]) -> str:
    """``{"C1": 1.0, "C7": 0.5}`` -> ``"C1=1,C7=0.5"`` (zero weights left out)."""
    return ",".join(f"{c}={w:g}" for c, w in weights.items() if w > 0)


def parse_slider_weights(text: str) -> dict[str, float] | None:
    """Slider weights from ``"C1=1,C7=0.5"`` (absent -> 0), or None when the text does not fit the
    sliders (:func:`slider_weights_problem` says why)."""
    return _slider_weights(text)[0]


def slider_weights_problem(text: str) -> str | None:
    """Why ``text`` gives no slider weights (None when it does): an unknown condition, a condition named
    twice (``c7=5,C7=0.1``: which one was meant?), not a plain decimal number
    (:func:`cap_core.choice.filters.plain_number`: ``1_000`` is refused), outside 0 to
    :data:`MAX_WEIGHT` or off the 0.1 grid."""
    return _slider_weights(text)[1]


def _slider_weights(text: str) -> tuple[dict[str, float] | None, str | None]:
    from cap_core.choice.filters import plain_number
    from cap_core.schema import CONDITION_IDS

    out = {c: 0.0 for c in CONDITION_IDS}
    if text.strip() == "none":
        return out, None
    named: set[str] = set()
    for part in text.split(","):
        if not part.strip():
            continue
        cond, sep, num = part.partition("=")
        cond = cond.strip().upper()
        if not sep or cond not in out:
            return None, f"{part.strip()[:20]!r} is not CONDITION=NUMBER with a condition C1..C8"
        if cond in named:
            return None, f"{cond} is named twice"
        named.add(cond)
        w = plain_number(num)
        if not 0 <= w <= MAX_WEIGHT or abs(w * 10 - round(w * 10)) > 1e-9:
            return None, f"the weight of {cond} is not a number from 0 to {MAX_WEIGHT:g} in steps of 0.1"
        out[cond] = round(w, 1)
    return out, None


def pending(name: str) -> Any:
    """A URL value the sidebar checks against its options (``bench``, ``judge``, ``fp``), once; None if absent."""
    return st.session_state.get(_PENDING, {}).pop(name, None)


def restore() -> None:
    """Copy the URL's view into the session (once per session, before the sidebar is drawn)."""
    from cap_core.choice.filters import parse_filters
    from cap_core.errors import CAPInputError
    from cap_core.profile.weights import PRESETS

    ss = st.session_state
    if ss.get(_DONE):
        return
    ss[_DONE] = True
    qp = st.query_params
    keys = list(qp.keys())
    if not keys:
        return
    later: dict[str, Any] = {}
    refused: list[str] = []
    for key in keys:
        value = qp.get(key)
        if key == "judge":
            judges = qp.get_all("judge")
            if len(judges) > MAX_LINK_JUDGES or any(len(j) > MAX_VALUE_LENGTH for j in judges):
                state.url_notice(f"Ignored the link's judges: more than {MAX_LINK_JUDGES} names or a name longer "
                                 f"than {MAX_VALUE_LENGTH} characters.")
            else:
                unique = list(dict.fromkeys(judges))  # a name given twice is one judge
                if len(unique) < len(judges):
                    state.url_notice("The link names a judge more than once; each is shown once.")
                later["judge"] = unique
            continue
        if len(key) > 100 or len(value) > MAX_VALUE_LENGTH:
            state.url_notice(f"Ignored the link's parameter {key[:40]!r}: longer than {MAX_VALUE_LENGTH} characters.")
            continue
        given = len(qp.get_all(key))
        if given > 1:  # st.query_params keeps the last: say so rather than choose silently
            state.url_notice(f"The link gives {key[:40]!r} {given} times; only the last ({value[:40]!r}) is used.")
        if key == "src":
            if value in SOURCE_CODES:
                ss["sb_source"] = SOURCE_CODES[value]
                if value != "default":
                    state.url_notice(f"The link was made on {SOURCE_CODES[value]}"
                                     + (f" (fingerprint {qp.get('fp')[:40]})" if qp.get("fp") else "")
                                     + ", which a link cannot carry: load the same data here to see its view.")
            else:
                state.url_notice(f"Ignored the link's data source {value!r}: expected one of {', '.join(SOURCE_CODES)}.")
        elif key == "pub":
            if value in ("0", "1"):
                ss["sb_published"] = value == "1"
            else:
                state.url_notice(f"Ignored the link's pub={value!r}: expected 1 or 0.")
        elif key == "preset":
            if value in PRESETS:
                ss["sb_preset"] = value
                for c, w in PRESETS[value].items():
                    ss[f"sb_w_{c}"] = w
            elif value != "custom":
                state.url_notice(f"Ignored the link's preset {value!r}: not a preset of this version.")
        elif key == "w":
            if "preset" in keys and qp.get("preset") in PRESETS:  # the app writes one or the other: say which won
                state.url_notice(f"Ignored the link's weights {value[:40]!r}: its preset {qp.get('preset')!r} sets "
                                 "the weights.")
                continue
            w, problem = _slider_weights(value)
            if w is None:
                state.url_notice(f"Ignored the link's weights {value!r}: {problem} (expected e.g. C1=2,C7=1, each "
                                 f"condition once, 0 to {MAX_WEIGHT:g} in steps of 0.1).")
            else:
                ss["sb_preset"] = "custom"
                for c, x in w.items():
                    ss[f"sb_w_{c}"] = x
        elif key == "min":
            try:
                parse_filters(value)
                ss["sb_min"] = value
            except CAPInputError:
                state.url_notice(f"Ignored the link's condition minimums {value!r}: expected e.g. C7=60,C1.low=50.")
        elif key in _CHOICES:
            target, allowed = _CHOICES[key]
            if value in allowed:
                ss[target] = value
            else:
                state.url_notice(f"Ignored the link's {key}={value!r}: expected {' or '.join(allowed)}.")
        elif key in ("bench", "fp"):
            later[key] = value
        elif key.startswith(_PREFIX) and len(key) > len(_PREFIX):
            name = key[len(_PREFIX):]
            if not link_may_set(name):
                refused.append(name)
                continue
            try:
                parsed = json.loads(value)
            except (ValueError, RecursionError):
                parsed = None
            if parsed is None or not _plain_value(parsed):
                state.url_notice(f"Ignored the link's setting {name}: not a readable value (expected text, a number "
                                 "or a list of them).")
                continue
            ss.setdefault(state.STORE, {})[name] = parsed
            ss.setdefault(state.FROM_URL, set()).add(name)
        else:
            state.url_notice(f"Ignored the link's unknown parameter {key!r}.")
    if refused:
        state.url_notice(f"Ignored the link's setting(s) {', '.join(refused)}: a link cannot set them (a link only "
                         "chooses what a page shows, never what is sent, to where, or what it costs).")
    ss[_PENDING] = later


def _settings(page: str | None) -> dict[str, str]:
    ss = st.session_state
    store = ss.get(state.STORE, {})
    out = {}
    for key in ss.get(state.PAGE_KEYS, {}).get(page, []):
        if not link_may_set(key, page):  # what a link may not set, it does not hold either
            continue
        value = ss[key] if key in ss else store.get(key)
        if isinstance(value, tuple):
            value = list(value)
        if _plain_value(value):
            text = json.dumps(value)
            if len(text) <= MAX_VALUE_LENGTH:  # long free text stays out of the link
                out[_PREFIX + key] = text
    return out


def sync() -> None:
    """Write the current view into the URL (only when it changed; no rerun)."""
    ss = st.session_state
    sel = ss.get("selection")
    if sel is None:
        return
    view: dict[str, Any] = {"src": _CODE_OF.get(sel.source, "default")}
    if sel.fingerprint:
        view["fp"] = sel.fingerprint
    if sel.benchmark:
        view["bench"] = sel.benchmark
    if sel.labels:
        view["judge"] = list(sel.labels)
    view["pub"] = "1" if sel.include_published else "0"
    preset = ss.get("sb_preset")
    if preset and preset != CUSTOM:
        view["preset"] = preset
    else:
        view["w"] = weights_text(sel.weights) or "none"
    if sel.filters_text:
        view["min"] = sel.filters_text
    if sel.failures != "count":
        view["fail"] = sel.failures
    if sel.items != "shared":
        view["items"] = sel.items
    view.update(_settings(ss.get(state.CURRENT_PAGE)))
    qp = st.query_params
    now = {k: (qp.get_all(k) if k == "judge" else qp.get(k)) for k in qp.keys()}
    if now != view:
        qp.from_dict(view)


def show_notices() -> None:
    """Show (once) the notices about URL parameters that were ignored."""
    from ui.text import plain

    notes = st.session_state.pop(state.NOTICES, None)
    if notes:  # the notices quote the link's values: plain text, never Markdown
        st.warning("This link could not be restored completely:\n\n" + "\n".join(f"- {plain(n)}" for n in notes))
