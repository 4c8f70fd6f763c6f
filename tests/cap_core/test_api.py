"""Notebook API (cap_core.api): a wrong argument type is a CAPInputError naming the argument, not a TypeError."""

from __future__ import annotations

import pytest

import cap_core
from cap_core.errors import CAPInputError


@pytest.mark.parametrize("path", [123, ["data/default"], b"data/default"])
def test_load_refuses_a_path_that_is_not_text(path):
    with pytest.raises(CAPInputError, match="argument `path`"):
        cap_core.load(path)
