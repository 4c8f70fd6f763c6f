"""Importers that turn public judge outputs or user tables into a :class:`cap_core.Dataset`."""

from cap_core.importers.generic import import_table
from cap_core.importers.judgebench import import_judgebench
from cap_core.importers.llmbar import import_llmbar

__all__ = ["import_llmbar", "import_judgebench", "import_table"]
