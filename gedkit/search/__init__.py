"""Similarity search over graph collections.

A :class:`Collection` keeps graphs with ids in one SQLite file, beside the signatures that the
filters read (:mod:`.signatures`, :mod:`.filters`); queries filter the whole collection and
verify what is left (:mod:`.ged_search`). Shards of a collection (:meth:`Collection.split`)
are searched independently and their answers combined by :func:`merge`; with ``client=`` the
searches run on a Dask cluster, a shard per task (:mod:`.distributed`).
"""

from gedkit.search.collection import Collection
from gedkit.search.merge import merge
from gedkit.search.result import Hit, SearchResult

__all__ = ["Collection", "Hit", "SearchResult", "merge"]
