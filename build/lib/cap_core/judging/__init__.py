"""Live judging: canonical requests, a persistent cache, a fault-tolerant client, verdict
parsing, offline judges, augmentation, rationale evaluation and judging runs.

Importing this package (or any module in it except at call time) never imports
``litellm``: the client imports it lazily inside functions, after setting
``LITELLM_LOCAL_MODEL_COST_MAP=True`` so that the price map is read from the installed
package and nothing is fetched. Modules:

``request``  canonical request and cache key        ``cache``     JSON-only diskcache, per-call claims
``client``   retries, backoff, budget, concurrency, one sender per call, early stop
``parse``    verdict parsing                        ``local_providers`` offline judges
``templates`` every prompt as a versioned file in ``prompts/`` (judging, C8, augmentation,
             probe grading and generation, SmolLM2's rationale request)
``run``      items x judges x orders -> judgments   ``augment``   polish / length padding
``smollm``   SmolLM2-135M on the CPU (optional)     ``items_io``  items with texts for a run
``evaluate`` rationale evaluator (C8)               ``testbed``   the built-in mini testbed
``run_dir``  the output folder of a run            ``estimate``  cost estimate before a run
``choice``   choice-probability judges (answer-token probabilities -> verdict + confidence)
``usage``    cost, latency and tokens per judge
``benchmarks`` public benchmarks with their texts from the user's local copy (reads the importers)
``candidates`` candidate judges beside a benchmark's published judges (the ``evaluate`` verb)

May import: the ``cap_core`` root and :mod:`cap_core.profile`; ``benchmarks`` and
``candidates`` also import :mod:`cap_core.importers` and :mod:`cap_core.analyses` (inside
functions), being the orchestration of a run over public data.
"""
