"""One Protocol type, one check: every command refuses a bad --protocol with the same one line."""

import pytest

from scenebench import PROTOCOLS
from scenebench.errors import InputError
from scenebench.protocol import check_protocol


def test_accepted_protocols_pass_through():
    assert PROTOCOLS == ("strict", "official")
    assert [check_protocol(p) for p in PROTOCOLS] == ["strict", "official"]


@pytest.mark.parametrize("bad, hint", [("offical", "did you mean official?"), ("Strict", "did you mean strict?"), ("loose", "")])
def test_a_bad_protocol_names_the_accepted_ones(bad, hint):
    with pytest.raises(InputError) as err:
        check_protocol(bad)
    msg = str(err.value)
    assert msg.startswith("field '--protocol': unknown protocol") and f"'{bad}'" in msg
    assert msg.endswith("(expected strict or official)") and hint in msg and "\n" not in msg


def test_non_strings_are_refused():
    with pytest.raises(InputError, match="unknown protocol None"):
        check_protocol(None)


def test_scorers_refuse_a_bad_protocol_before_reading_anything(tmp_path):
    from scenebench.runtime.scoring import score_benchmark

    # the data folders do not exist: the protocol must be checked first
    with pytest.raises(InputError, match="unknown protocol 'offical'"):
        score_benchmark("rio", tmp_path / "out", protocol="offical", data=tmp_path / "missing", predictions=tmp_path / "p.jsonl")
    assert not (tmp_path / "out").exists()
