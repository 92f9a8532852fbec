import pytest

from .rooms import write_room


@pytest.fixture(scope="session")
def room_m(tmp_path_factory):
    return write_room(tmp_path_factory.mktemp("room_m"), units="m", density=300.0)


@pytest.fixture(scope="session")
def room_mm(tmp_path_factory):
    return write_room(tmp_path_factory.mktemp("room_mm"), units="mm", density=300.0)
