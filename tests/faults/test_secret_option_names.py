"""``--model-arg`` secrets are redacted whatever the option is called (issue 41).

Before, only option names holding api_key / password / secret / token were redacted: ``key=``,
``auth=``, ``authorization=``, ``credentials=``, ``bearer=`` and ``headers=`` (an HTTP headers
option carrying ``Authorization: Bearer ...``) went into run.json, results.json's ``command`` and
error messages as typed.
"""

from __future__ import annotations

import pytest

from scenebench.redact import is_secret_name, known_secrets, option_secrets, redact_argv, redact_options, redact_text

SECRET = "zx-credential-91c4e7b2a8"
NAMES = ["key", "auth", "authorization", "credentials", "bearer", "headers", "x_api_key", "openai_key", "auth_header"]


@pytest.mark.parametrize("name", NAMES)
def test_secret_option_names_are_redacted_everywhere(name):
    assert is_secret_name(name)
    argv = ["run", "3dbench", "--model", "plugin:m:M", "--model-arg", f"{name}={SECRET}", "--model-arg", "temperature=0.2"]
    assert redact_argv(argv) == ["run", "3dbench", "--model", "plugin:m:M", "--model-arg", f"{name}=***", "--model-arg", "temperature=0.2"]
    assert redact_options({name: SECRET, "temperature": 0.2}) == {name: "***", "temperature": 0.2}
    assert SECRET in known_secrets(environ={}, argv=argv)
    assert redact_text(f"server said: bad {SECRET[:12]}", known_secrets(environ={}, argv=argv)) == "server said: bad ***"


def test_a_headers_mapping_given_in_code_is_redacted_and_its_values_masked():
    opts = {"headers": {"Authorization": f"Bearer {SECRET}"}, "base_url": "http://u:pw-9f8e7d6c@h/v1", "max_tokens": 24}
    assert redact_options(opts) == {"headers": "***", "base_url": "http://u:***@h/v1", "max_tokens": 24}
    assert set(option_secrets(opts)) == {f"Bearer {SECRET}", "pw-9f8e7d6c"}


@pytest.mark.parametrize("name", ["max_tokens", "temperature", "keyframes", "author", "num_keys", "monkey", "seed", "base_url"])
def test_ordinary_option_names_are_kept(name):
    assert not is_secret_name(name)
    assert redact_argv(["--model-arg", f"{name}=12345678"]) == ["--model-arg", f"{name}=12345678"]
