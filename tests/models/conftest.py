import pytest


@pytest.fixture(scope="session")
def s3d_dir(tmp_path_factory):
    from fixtures import make_surprise3d

    return make_surprise3d(tmp_path_factory.mktemp("data") / "surprise3d")


@pytest.fixture(scope="session")
def rio_dir(tmp_path_factory):
    from fixtures import make_rio

    return make_rio(tmp_path_factory.mktemp("data") / "rio")


@pytest.fixture(scope="session")
def b3d_dir(tmp_path_factory):
    from fixtures import make_bench3d

    return make_bench3d(tmp_path_factory.mktemp("data") / "3dbench")
