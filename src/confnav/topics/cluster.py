"""Clusterers: vectors in, one integer theme per row out, deterministic for a seed.

The default is Leiden community detection (Traag, Waltman & van Eck, 2019) on the
cosine k-nearest-neighbour graph, with the resolution searched so the number of
themes lands in the wanted range; tiny communities are merged into the nearest
large one, so there is no outlier bucket.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from confnav.errors import ConfnavError
from confnav.registry import Registry, step_name


class Clusterer(Protocol):
    """Partition rows of `vectors` into about `low`–`high` groups: one integer label per row, the groups numbered
    0..k-1 (a gap is closed by the build, keeping their order); no -1 "noise", since every paper has a theme."""

    def fit_predict(self, vectors: np.ndarray, low: int, high: int) -> np.ndarray: ...


def group_labels(labels: object, rows: int, clusterer: object) -> np.ndarray:
    """A clusterer's labels as groups 0..k-1 in their order (gaps closed), or a one-line ConfnavError naming the
    clusterer when they are not one non-negative integer per row."""
    name = step_name(clusterer)
    found = np.asarray(labels)
    if found.shape != (rows,) or not np.issubdtype(found.dtype, np.integer):
        raise ConfnavError(
            f"clusterer {name!r} must give one integer label per paper ({rows}); it gave {found.shape} of {found.dtype}"
        )
    if rows and found.min() < 0:
        raise ConfnavError(
            f"clusterer {name!r} left {int((found < 0).sum())} papers out (label -1):"
            " every paper must be in a theme, numbered from 0"
        )
    return np.unique(found, return_inverse=True)[1].astype(np.int64).reshape(rows)


def knn_graph(vectors: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices and cosine similarities of each row's k nearest other rows (exact, deterministic)."""
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    k = min(k, len(unit) - 1)
    neighbours = np.zeros((len(unit), k), dtype=np.int64)
    similarity = np.zeros((len(unit), k), dtype=np.float32)
    for start in range(0, len(unit), 2048):
        block = unit[start : start + 2048] @ unit.T
        for i in range(block.shape[0]):
            block[i, start + i] = -np.inf
        top = np.argpartition(-block, k, axis=1)[:, :k]
        order = np.argsort(-np.take_along_axis(block, top, axis=1), axis=1, kind="stable")
        neighbours[start : start + len(block)] = np.take_along_axis(top, order, axis=1)
        similarity[start : start + len(block)] = np.take_along_axis(
            block, neighbours[start : start + len(block)], axis=1
        )
    return neighbours, similarity


def merge_small(labels: np.ndarray, vectors: np.ndarray, min_size: int) -> np.ndarray:
    """Move members of groups smaller than `min_size` to the nearest large group's centre; renumber by size."""
    labels = labels.copy()
    sizes = np.bincount(labels)
    large = [c for c in range(len(sizes)) if sizes[c] >= min_size]
    if not large:
        large = [int(np.argmax(sizes))]
    centres = np.vstack([vectors[labels == c].mean(axis=0) for c in large])
    for row in np.flatnonzero(~np.isin(labels, large)):
        labels[row] = large[int(np.argmax(centres @ vectors[row]))]
    order = sorted(set(labels.tolist()), key=lambda c: (-int((labels == c).sum()), c))
    renumber = {old: new for new, old in enumerate(order)}
    return np.array([renumber[c] for c in labels], dtype=np.int64)


class LeidenClusterer:
    """Leiden (RB configuration model) on the k-NN graph; the resolution is bisected into range, then the most
    modular of `tries` seeded runs at that resolution is kept, so the themes depend less on one seed's luck."""

    def __init__(self, neighbours: int = 15, resolution: float = 2.0, seed: int = 0, tries: int = 5) -> None:
        self.neighbours = neighbours
        self.resolution = resolution
        self.seed = seed
        self.tries = tries

    def _partition(self, graph: object, resolution: float, seed: int) -> tuple[np.ndarray, float]:
        """One Leiden run's membership and its quality (the modularity it maximises)."""
        import leidenalg

        partition = leidenalg.find_partition(
            graph,
            leidenalg.RBConfigurationVertexPartition,
            weights="weight",
            resolution_parameter=resolution,
            seed=seed,
        )
        return np.array(partition.membership, dtype=np.int64), float(partition.quality())

    def fit_predict(self, vectors: np.ndarray, low: int, high: int) -> np.ndarray:
        import igraph

        neighbours, similarity = knn_graph(vectors, self.neighbours)
        n = len(vectors)
        edges = np.column_stack([np.repeat(np.arange(n), neighbours.shape[1]), neighbours.ravel()])
        graph = igraph.Graph(n=n, edges=edges.tolist())
        graph.es["weight"] = np.clip(similarity.ravel(), 1e-6, None).tolist()
        graph.simplify(combine_edges="sum")
        min_size = max(3, n // 300)
        resolution, lo, hi = self.resolution, 0.05, 50.0
        labels, quality = np.zeros(n, dtype=np.int64), -np.inf
        for _ in range(12):
            membership, quality = self._partition(graph, resolution, self.seed)
            labels = merge_small(membership, vectors, min_size)
            count = int(labels.max()) + 1
            if low <= count <= high:
                break
            lo, hi = (resolution, hi) if count < low else (lo, resolution)
            resolution = (lo + hi) / 2
        else:
            return labels
        for seed in range(self.seed + 1, self.seed + self.tries):
            membership, tried = self._partition(graph, resolution, seed)
            other = merge_small(membership, vectors, min_size)
            if tried > quality and low <= int(other.max()) + 1 <= high:
                labels, quality = other, tried
        return labels


class KMeansClusterer:
    """k-means with k in the middle of the range: a simple, dependable alternative."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def fit_predict(self, vectors: np.ndarray, low: int, high: int) -> np.ndarray:
        from sklearn.cluster import KMeans

        k = max(1, min(len(vectors), (low + high) // 2))
        labels = KMeans(k, n_init=10, random_state=self.seed).fit_predict(vectors)
        return merge_small(labels, vectors, 1)


CLUSTERERS: Registry[Clusterer] = Registry("clusterer", ("fit_predict",), arguments=("seed",))
CLUSTERERS.register("leiden", LeidenClusterer)
