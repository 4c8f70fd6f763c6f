"""Names of the judges that answer offline (``local/…`` and ``smollm/…``), checked before any call.

Beside both providers, so neither imports the other (:mod:`cap_core.judging.local_providers`,
:mod:`cap_core.judging.smollm`).
"""

from __future__ import annotations

from cap_core.errors import CAPInputError

__all__ = ["check_offline_model"]


def check_offline_model(model: str, *, argument: str = "model") -> None:
    """Refuse a ``local/`` or ``smollm/`` model name that no offline provider answers, before any call.

    Other names (a hosted provider's) are left to litellm.

    Raises
    ------
    CAPInputError
        ``model`` starts with ``local/`` or ``smollm/`` but is not one of
        :data:`cap_core.judging.local_providers.LOCAL_MODELS` or :data:`cap_core.judging.smollm.MODELS`
        (names them, and the closest one when there is one).
    """
    from cap_core.judging.local_providers import LOCAL_MODELS
    from cap_core.judging.smollm import MODELS as SMOLLM_MODELS

    name = model.strip()
    for prefix, known in (("local/", LOCAL_MODELS), ("smollm/", SMOLLM_MODELS)):
        # the provider is matched whatever its case or surrounding spaces (LOCAL/longer, " local/first"):
        # litellm would take such a name for a hosted model and fail only after the calls
        if name.lower().startswith(prefix) and model not in known:
            import difflib  # only a refused name needs it

            near = difflib.get_close_matches(name.lower(), known, n=1)
            raise CAPInputError(f"unknown {prefix.rstrip('/')} model", argument=argument,
                                expected="one of " + ", ".join(known), got=model,
                                fix=(f"did you mean {near[0]}?" if near else f"e.g. {known[0]}"))
