"""Page settings that survive leaving the page and coming back.

Streamlit drops a widget's value at the end of every run in which the widget is not drawn,
so a page's sliders and choices would reset whenever the user visits another page (the
sidebar keeps its values because it is drawn on every run). Each page widget therefore
gets its value through :func:`kept` just before it is drawn:

* the widget's key is page-prefixed (``cas_tau``, ``fr_min_s`` …);
* while the widget exists, its current value is copied into ``st.session_state["_kept"]``
  (a plain dict, which streamlit never drops);
* when the widget comes back without a value (the page was left), the copy is written
  into the widget's key before the widget is drawn, so it starts where the user left it.

Widgets drawn through :func:`kept` must not also pass ``value=`` / ``index=`` /
``default=``: the default is given to :func:`kept` instead (one source for the value).

File uploaders cannot be given a value; :func:`kept_upload` keeps the last uploaded file
(name and bytes) instead and hands it back after a return to the page. A data editor's
result is kept with :func:`remember` and given back as its data with :func:`remembered`.
"""

from __future__ import annotations

from typing import Any, Sequence

import streamlit as st

from ui.text import plain

__all__ = ["STORE", "FROM_URL", "PAGE_KEYS", "NOTICES", "kept", "kept_upload", "remembered", "remember",
           "url_notice", "forget_url_settings"]

#: session_state key of the dict that holds the copies (widget key -> value).
STORE = "_kept"
#: session_state key of the set of store keys whose value came from the URL (:mod:`ui.query`).
FROM_URL = "_kept_from_url"
#: session_state key of ``{page url path: [keys drawn through kept() on that page]}`` (the URL's page settings).
PAGE_KEYS = "_kept_page_keys"
#: session_state key of the list of notices about URL parameters that were ignored.
NOTICES = "_url_notices"
#: session_state key of the set of widget keys that were given a value from the URL (:func:`forget_url_settings`).
URL_APPLIED = "_kept_url_applied"
#: session_state key naming the page being run (set by the router before ``page.run()``).
CURRENT_PAGE = "_current_page"


def _store() -> dict[str, Any]:
    return st.session_state.setdefault(STORE, {})


def _valid(value: Any, options: Sequence[Any], default: Any) -> Any:
    """``value`` if it is (every chosen value is) still an option, else ``default``."""
    if isinstance(value, (list, tuple)):
        inside = [v for v in value if v in options]
        return inside if inside or not value else default
    if value in options:
        return value
    return default if default in options else (options[0] if len(options) else None)


def kept(key: str, default: Any = None, *, options: Sequence[Any] | None = None, follows: Any = None) -> str:
    """Give widget ``key`` its last value (or ``default``) and return ``key``.

    Call it in the widget's ``key=`` argument, e.g.
    ``st.slider("τ", 0.0, 1.0, step=0.01, key=kept("cas_tau", 0.5))``.

    Parameters
    ----------
    key : str
        The widget key (page-prefixed).
    default : any, optional
        Value on the first visit. ``None`` leaves the widget's own default (first option,
        minimum of a slider, empty text).
    options : sequence, optional
        The widget's current options: a value (or, for a multiselect, every chosen value)
        that is no longer an option is replaced by ``default`` (or the first option).
    follows : hashable, optional
        What ``default`` is derived from (e.g. a matched threshold's floor): when it changes,
        the widget returns to the new ``default``; while it stays, the user's value is kept.

    Returns
    -------
    str
        ``key``, unchanged.
    """
    ss, store = st.session_state, _store()
    tokens = st.session_state.setdefault(STORE + "_follows", {})
    if follows is not None and tokens.get(key, follows) != follows:
        ss.pop(key, None)
        store.pop(key, None)
    if follows is not None:
        tokens[key] = follows
    from_url = key in ss.get(FROM_URL, ())
    value = ss[key] if key in ss else store.get(key, default)
    if from_url:
        ss[FROM_URL].discard(key)
        value = _url_value(key, value, default, options)
        if value is not default:
            ss.setdefault(URL_APPLIED, set()).add(key)
    if options is not None:
        value = _valid(value, options, default)
    _register(key)
    if value is None:
        store.pop(key, None)
        return key
    # Always assign (even an equal value): a key whose widget state streamlit dropped in an
    # interrupted run can linger without a value the widget accepts; assigning before the
    # widget is drawn makes the widget start from the kept value, never from its own default.
    ss[key] = value
    store[key] = value
    return key


def url_notice(text: str) -> None:
    """Record a notice about an ignored URL parameter (shown once by :func:`ui.query.show_notices`)."""
    notes = st.session_state.setdefault(NOTICES, [])
    if text not in notes:
        notes.append(text)


def _url_value(key: str, value: Any, default: Any, options: Sequence[Any] | None) -> Any:
    """A value restored from the URL, or ``default`` with a notice when it does not fit the widget."""
    import math

    if (isinstance(value, float) and not math.isfinite(value)) or (
            isinstance(value, bool) and default is not None and not isinstance(default, bool)):
        url_notice(f"Ignored the link's setting {key}={value!r}: expected a finite {type(default).__name__}.")
        return default
    if default is None and options is None and not isinstance(value, str):
        # widgets kept without a default or options are text boxes and radios: their values are text
        url_notice(f"Ignored the link's setting {key}={value!r}: expected text.")
        return default
    if default is not None and not isinstance(value, type(default)):
        if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        url_notice(f"Ignored the link's setting {key}={value!r}: expected a {type(default).__name__}.")
        return default
    if options is not None and _valid(value, options, default) != value:
        url_notice(f"Ignored the link's setting {key}={value!r}: not an option here any more.")
        return default
    return value


def forget_url_settings() -> bool:
    """Drop the page settings the URL gave (after a widget refused one, e.g. a value outside a
    slider's range), with a notice naming them; True when there were any (the router then reruns
    the page, whose widgets start from their defaults)."""
    ss = st.session_state
    keys = sorted(ss.pop(URL_APPLIED, set()))
    for key in keys:
        ss.pop(key, None)
        _store().pop(key, None)
    if keys:
        url_notice(f"Ignored the link's setting(s) {', '.join(keys)}: outside the range of their widgets.")
    return bool(keys)


def _register(key: str) -> None:
    ss = st.session_state
    page = ss.get(CURRENT_PAGE)
    if page is None or key.startswith("sb_"):  # the sidebar has URL parameters of its own
        return
    keys = ss.setdefault(PAGE_KEYS, {}).setdefault(page, [])
    if key not in keys:
        keys.append(key)


def kept_upload(where: Any, label: str, *, key: str, **kwargs: Any) -> tuple[str, bytes] | None:
    """Draw a file uploader and return its file as ``(name, bytes)``, kept across page visits.

    Parameters
    ----------
    where : streamlit container
        ``st``, ``st.sidebar`` or a column.
    label, key, **kwargs
        As for ``st.file_uploader``.

    Returns
    -------
    tuple or None
        ``(file name, content)``, or None when there is no file. After a return to the
        page (the uploader is new and empty) the last file is handed back and a caption
        says so; when the user removes the file from the uploader it is forgotten.
    """
    store = _store()
    drawn_before = key in st.session_state  # the uploader existed in the previous run
    up = where.file_uploader(label, key=key, **kwargs)
    if up is not None:
        store[key] = (up.name, up.getvalue())
    elif drawn_before:
        store.pop(key, None)
    elif key in store:
        where.caption(f"Using {plain(store[key][0])}, uploaded earlier on this page; upload another file to replace "
                      "it.")
    return store.get(key)


def remembered(key: str, default: Any = None) -> Any:
    """A page value that is not a widget's (e.g. the result of a data editor), or ``default``."""
    return _store().get(key, default)


def remember(key: str, value: Any) -> None:
    """Keep ``value`` under ``key`` for :func:`remembered` (survives leaving the page)."""
    _store()[key] = value
