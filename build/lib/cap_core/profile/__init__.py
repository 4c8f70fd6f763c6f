"""The Conditional Accuracy Profile itself (CAP paper, §3, Table 1, Table 2).

``coverage``    which conditions a benchmark measures, and which items count for each
``units``       per-unit arrays behind the conditions (one row per base item and cell)
``conditions``  the eight conditions with shared-resample bootstrap intervals
``engine``      per-base-item sufficient statistics, kept per dataset fingerprint, and their bootstrap
``engine_stream`` the statistics of a dataset on disk larger than memory (polars, streamed slices)
``engine_dask`` the statistics on a Dask cluster (dask.dataframe over Parquet; imported on demand)
``weights``     application-weighted scores and P(best) over a profile
``published``   the published CAP tables as profile and coverage frames
``combine``     one profile frame from computed and published profiles
``selection``   one value per (judge, condition) out of a profile frame
``small_cells`` cells under 50 base items whose bootstrap intervals are optimistic (the rule and its notice)

May import: the shared model at the ``cap_core`` root (errors, schema, dataset, io,
export, bootstrap, config, verdicts). Never imports another domain package. ``dask`` and
``distributed`` are imported only inside ``engine_dask``.
"""
