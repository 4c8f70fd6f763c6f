"""Live judging: canonical requests, a persistent cache, a fault-tolerant client, verdict
parsing, offline judges, augmentation, rationale evaluation and judging runs.

Importing this package (or any module in it except at call time) never imports
``litellm``: the client imports it lazily inside functions, after setting
``LITELLM_LOCAL_MODEL_COST_MAP=True`` so that the price map is read from the installed
package and nothing is fetched. Modules:

``request``  canonical request and cache key        ``cache``     diskcache layer
``client``   retries, backoff, budget, concurrency  ``parse``     verdict parsing
``prompts``  versioned prompt templates             ``local_providers`` offline judges
``run``      items x judges x orders -> judgments   ``augment``   polish / length padding
``evaluate`` rationale evaluator (C8)               ``testbed``   the built-in mini testbed
``run_dir``  the output folder of a run            ``estimate``  cost estimate before a run

May import: the ``cap_core`` root and :mod:`cap_core.profile`.
"""
