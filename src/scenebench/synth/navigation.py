"""Shortest walkable paths on the house's occupancy grid (0.25 m cells, 8-connected).

Diagonal steps are allowed only when both side cells are free (no corner cutting). The goal of a
path to an object is the nearest free cell within ``reach`` metres of the object's footprint.
Waypoints are cell centres ``[x, z]`` in metres, rounded to 2 decimals.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

from scenebench.synth.placement import NAV_RES

GOAL_REACH_M = 0.6  # a path ends on the nearest free cell this close to the object's footprint


class NavGrid:
    def __init__(self, walkable: np.ndarray, res: float = NAV_RES):
        self.walkable = walkable
        self.res = res
        nx, nz = walkable.shape
        idx = np.arange(nx * nz).reshape(nx, nz)
        rows, cols, wts = [], [], []
        for di, dj in ((1, 0), (0, 1), (1, 1), (1, -1)):
            a = walkable[max(0, -di) : nx - max(0, di), max(0, -dj) : nz - max(0, dj)]
            i0, j0 = max(0, -di), max(0, -dj)
            src = walkable[i0 : i0 + a.shape[0], j0 : j0 + a.shape[1]]
            dst = walkable[i0 + di : i0 + di + a.shape[0], j0 + dj : j0 + dj + a.shape[1]]
            ok = src & dst
            if di and dj:  # no corner cutting
                ok &= (
                    walkable[i0 + di : i0 + di + a.shape[0], j0 : j0 + a.shape[1]]
                    & walkable[i0 : i0 + a.shape[0], j0 + dj : j0 + dj + a.shape[1]]
                )
            s = idx[i0 : i0 + a.shape[0], j0 : j0 + a.shape[1]][ok]
            t = idx[i0 + di : i0 + di + a.shape[0], j0 + dj : j0 + dj + a.shape[1]][ok]
            w = np.hypot(di, dj) * res
            rows += [s, t]
            cols += [t, s]
            wts += [np.full(len(s), w), np.full(len(s), w)]
        n = nx * nz
        self.graph = coo_matrix((np.concatenate(wts), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n)).tocsr()

    def centre(self, flat: np.ndarray) -> np.ndarray:
        i, j = np.unravel_index(flat, self.walkable.shape)
        return np.stack([(i + 0.5) * self.res, (j + 0.5) * self.res], -1)

    def footprint_distance(self, flat: np.ndarray, footprint: tuple[float, float, float, float]) -> np.ndarray:
        """Distance (metres) from each cell centre to the axis-aligned ``footprint`` (0 inside)."""
        x0, z0, x1, z1 = footprint
        x, z = self.centre(np.asarray(flat)).T
        dx = np.maximum(np.maximum(x0 - x, x - x1), 0)
        dz = np.maximum(np.maximum(z0 - z, z - z1), 0)
        out: np.ndarray = np.hypot(dx, dz)
        return out

    def goal_cells(self, footprint: tuple[float, float, float, float], reach: float = GOAL_REACH_M) -> np.ndarray:
        free = np.flatnonzero(self.walkable.ravel())
        return free[self.footprint_distance(free, footprint) <= reach]

    def path(self, start_flat: int, goals: np.ndarray) -> list[list[float]] | None:
        """Waypoints from ``start_flat`` to the nearest of ``goals``; None when unreachable."""
        if len(goals) == 0:
            return None
        dist, pred = dijkstra(self.graph, indices=int(start_flat), return_predecessors=True)
        g = goals[np.argmin(dist[goals])]
        if not np.isfinite(dist[g]):
            return None
        seq = [int(g)]
        while seq[-1] != start_flat:
            seq.append(int(pred[seq[-1]]))
        pts = self.centre(np.asarray(seq[::-1]))
        return [[round(float(x), 2), round(float(z), 2)] for x, z in pts]
