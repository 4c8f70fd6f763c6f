"""Importers: every reading of a raw public file or a user table lives here.

``llmbar``, ``judgebench``, ``pandalm``  public judge outputs -> :class:`cap_core.Dataset`
``label_sets``    the public label sets of the surface audit, texts read from a local copy
``real_gradings`` the public gradings table of the Frontiers page (part of the build)
``generic``       a user's CSV / TSV / JSONL / JSON / Parquet tables
``alpacaeval``, ``mtbench``, ``arena_hard``, ``inspect_logs``  other tools' judge files (AlpacaEval
                  annotations, FastChat MT-Bench judgments, Arena-Hard games, inspect_ai logs), through
                  ``_tools`` (encoding tallies, gold, the dataset build)
``hub``           ``fetch NAME``: public benchmarks from the Hugging Face Hub into a local folder
``default_data``  the build of the embedded ``data/`` folder from the public data folder

May import: the ``cap_core`` root and the domain packages whose models the importers
fill (``audit.label_set``) or whose derived figures the default-data build writes.
"""

from cap_core.importers.generic import import_table
from cap_core.importers.judgebench import import_judgebench
from cap_core.importers.llmbar import import_llmbar

__all__ = ["import_llmbar", "import_judgebench", "import_table"]
