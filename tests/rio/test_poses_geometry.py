import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from scenebench.geometry.poses import (
    about_pivot,
    compose,
    invert,
    is_identity,
    is_rotation,
    matrix_from_column_major,
    quaternion_to_matrix,
    rotation_z,
    symmetry_order,
    symmetry_rotations,
)


def test_column_major_round_trip():
    M = np.arange(16.0).reshape(4, 4)
    flat = M.T.reshape(-1)  # column-major
    assert np.array_equal(matrix_from_column_major(flat), M)
    assert np.array_equal(matrix_from_column_major(np.stack([flat, flat])), np.stack([M, M]))


def test_quaternion_scalar_first_matches_scipy():
    rng = np.random.default_rng(0)
    rot = Rotation.random(50, random_state=rng)
    xyzw = rot.as_quat()
    wxyz = np.c_[xyzw[:, 3], xyzw[:, :3]]
    assert np.allclose(quaternion_to_matrix(wxyz), rot.as_matrix())


def test_is_rotation_tolerance():
    R = rotation_z(0.3)
    assert is_rotation(R)
    assert is_rotation(np.round(R, 6))  # six printed decimals pass
    assert not is_rotation(R * 1.01)
    assert not is_rotation(np.diag([1.0, 1.0, -1.0]))  # reflection: det -1
    assert not is_rotation(np.full((3, 3), np.nan))


def test_invert_and_pivot():
    T = compose(rotation_z(0.7), [1.0, 2.0, 3.0])
    assert np.allclose(invert(T) @ T, np.eye(4))
    p = np.array([2.0, -1.0, 0.5])
    S = about_pivot(rotation_z(np.pi), p)
    assert np.allclose(S @ np.append(p, 1), np.append(p, 1))  # the pivot stays put
    assert is_identity(np.eye(4)) and not is_identity(T)


def test_symmetry_codes():
    # 3RScan's 0/1/2 and scenebench's extension 3 (continuous about +Z, order 0)
    assert [symmetry_order(c) for c in (0, 1, 2, 3)] == [1, 2, 4, 0]
    with pytest.raises(ValueError, match="unknown symmetry code 5"):
        symmetry_order(5)
    assert symmetry_order(5, {5: 8}) == 8 and symmetry_order(5, {5: 0}) == 0
    with pytest.raises(ValueError, match="continuous"):
        symmetry_rotations(0)
    g = symmetry_rotations(4)
    assert g.shape == (4, 3, 3) and np.allclose(g[0], np.eye(3)) and np.allclose(g[2], rotation_z(np.pi))


def test_is_identity_equals_the_trace_clip_norm_reference():
    # is_identity runs once per RIO instance; it is written with plain ufuncs (and Python floats for
    # one pose) and must give what np.trace / np.clip / np.linalg.norm gave, on batches and one by one.
    import numpy as np
    from scipy.spatial.transform import Rotation

    from scenebench.geometry.poses import is_identity

    def reference(T, rot_tol_deg, trans_tol_m):
        T = np.asarray(T, dtype=float)
        tr = np.trace(T[..., :3, :3], axis1=-2, axis2=-1)
        ang = np.degrees(np.arccos(np.clip((tr - 1.0) / 2.0, -1.0, 1.0)))
        return (ang <= rot_tol_deg) & (np.linalg.norm(T[..., :3, 3], axis=-1) <= trans_tol_m)

    rng = np.random.default_rng(0)
    n = 4000
    T = np.tile(np.eye(4), (n, 1, 1))
    T[:, :3, :3] = Rotation.from_rotvec(rng.normal(size=(n, 3)) * 10 ** rng.uniform(-9, 0, (n, 1))).as_matrix()
    T[:, :3, 3] = rng.normal(size=(n, 3)) * 10 ** rng.uniform(-9, -5, (n, 1))
    T[::50] = np.eye(4)
    T[1::97, 0, 0] = np.nan
    T[2::89, 0, 3] = np.inf
    for tol in [(1e-3, 1e-6), (0.5, 1e-5), (1e-6, 1e-8)]:
        expected = reference(T, *tol)
        assert 0 < expected.sum() < n
        np.testing.assert_array_equal(is_identity(T, rot_tol_deg=tol[0], trans_tol_m=tol[1]), expected)
        assert [bool(is_identity(t, rot_tol_deg=tol[0], trans_tol_m=tol[1])) for t in T] == expected.tolist()
