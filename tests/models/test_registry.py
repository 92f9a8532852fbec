import pytest

import scenebench.registry as core_registry
from scenebench.errors import ScenebenchError
from scenebench.models.registry import MODELS, builtin_names, make_model, model_factory_path


def test_builtins_resolve_lazily_and_build():
    for name in ["oracle", "random", "baseline:prior", "baseline:nearest", "baseline:cluster"]:
        m = make_model(name, seed=3)
        assert callable(m.predict)
    assert make_model("random", seed=3).seed == 3
    assert "openai:MODEL" in builtin_names() and "baseline:fpfh" in builtin_names()


def test_unknown_name_suggests_close_ones():
    with pytest.raises(ScenebenchError, match="did you mean baseline:prior"):
        make_model("baseline:prio")


def test_plugin_and_openai_specs():
    assert model_factory_path("plugin:pkg.mod:Cls") == "pkg.mod:Cls"
    with pytest.raises(ScenebenchError, match="plugin:package.module:ClassName"):
        model_factory_path("plugin:pkg.mod")
    with pytest.raises(ScenebenchError, match="cannot import module 'no_such_pkg.x'"):
        make_model("plugin:no_such_pkg.x:Y")
    with pytest.raises(ScenebenchError, match="needs the model id"):
        model_factory_path("openai:")
    with pytest.raises(ScenebenchError, match="needs --base-url"):
        make_model("openai:some-model", base_url=None)
    m = make_model("openai:some-model", base_url="http://127.0.0.1:9/v1", seed=2)
    assert m.model == "some-model" and m.name == "openai:some-model" and m.settings()["model"] == "some-model"


def test_a_plugin_without_predict_is_refused():
    with pytest.raises(ScenebenchError, match="no predict"):
        make_model("plugin:collections:OrderedDict")


def test_entry_point_models_are_found(monkeypatch):
    class EP:
        name, value = "my-model", "scenebench.models.builtin.oracle:OracleModel"

    monkeypatch.setattr(core_registry, "entry_points", lambda group: [EP()] if group == "scenebench.models" else [])
    assert "my-model" in MODELS.names()
    assert type(make_model("my-model")).__name__ == "OracleModel"
