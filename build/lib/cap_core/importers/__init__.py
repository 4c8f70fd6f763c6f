"""Importers: every reading of a raw public file or a user table lives here.

``llmbar``, ``judgebench``, ``pandalm``  public judge outputs -> :class:`cap_core.Dataset`
``label_sets``    the public label sets of the surface audit, texts read from a local copy
``real_gradings`` the public gradings table of the Frontiers page (part of the build)
``generic``       a user's CSV / TSV / JSONL / JSON / Parquet tables
``alpacaeval``, ``mtbench``, ``arena_hard``, ``inspect_logs``  other tools' judge files (AlpacaEval
                  annotations, FastChat MT-Bench judgments, Arena-Hard games, inspect_ai logs), through
                  ``_tools`` (encoding tallies, gold, the dataset build)
``autoj``, ``rewardbench``  Auto-J pairwise predictions (with its agreement / consistency) and
                  RewardBench per-item scores (with its section weighting)
``formats``       the one registry of import kinds (CLI ``import``, ``cap_core.import_source``,
                  the dashboard's upload): reader, options, description, path of each
``uploads``       uploaded files written to a content-addressed folder and read by the registry
``hub``           ``fetch NAME``: public benchmarks from the Hugging Face Hub into a local folder
``default_data``  the build of the embedded ``data/`` folder from the public data folder

May import: the ``cap_core`` root and the domain packages whose models the importers
fill (``audit.label_set``), whose source rules they share (``analyses.source_rules``: a
source's encoding read by both its importer and its metrics) or whose derived figures the
default-data build writes.
"""

__all__ = ["import_llmbar", "import_judgebench", "import_table"]

#: where each re-exported importer lives; loaded on first use (PEP 562), so importing one
#: importer module (e.g. ``label_sets`` for the CLI's set names) does not load the others
_LAZY = {"import_table": "cap_core.importers.generic", "import_judgebench": "cap_core.importers.judgebench",
         "import_llmbar": "cap_core.importers.llmbar"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'cap_core.importers' has no attribute {name!r}")
