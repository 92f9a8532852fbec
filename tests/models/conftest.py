import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


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
