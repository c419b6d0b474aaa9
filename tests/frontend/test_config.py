"""jaxwg.config behaves like jax.config for the options it has."""

import subprocess
import sys

import jax
import pytest

from jaxwg import config


@pytest.fixture
def restore_x64():
    before = config.jax_enable_x64
    yield
    config.update("jax_enable_x64", before)


def test_update_and_read(restore_x64):
    config.update("jax_enable_x64", True)
    assert config.jax_enable_x64 is True and config.read("jax_enable_x64") is True
    assert config.values()["jax_enable_x64"] is True
    config.update("jax_enable_x64", False)
    assert config.jax_enable_x64 is False


def test_bad_names_and_values_are_clear_errors():
    with pytest.raises(AttributeError, match="Unrecognized config option: jax_no_such"):
        config.update("jax_no_such", 1)
    with pytest.raises(AttributeError, match="Unrecognized config option"):
        config.read("jax_no_such")
    with pytest.raises(AttributeError, match="has no attribute 'jax_no_such'"):
        config.jax_no_such
    with pytest.raises(TypeError, match="takes a bool"):
        config.update("jax_enable_x64", "yes")
    with pytest.raises(AttributeError, match="config.update"):
        config.jax_enable_x64 = True


def test_environment_sets_the_default():
    code = "from jaxwg import config; print(config.jax_enable_x64)"
    out = subprocess.run([sys.executable, "-c", code], env={"JAX_ENABLE_X64": "1", "PATH": ""},
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_matches_jax_for_the_same_calls():
    assert config.jax_enable_x64 == jax.config.jax_enable_x64
    for cfg in (config, jax.config):
        with pytest.raises(AttributeError, match="Unrecognized config option: jax_no_such"):
            cfg.update("jax_no_such", 1)


def test_debug_key_reuse_accepted_off_and_clear_when_on():
    assert config.jax_debug_key_reuse is False and config.read("jax_debug_key_reuse") is False
    config.update("jax_debug_key_reuse", False)
    import jaxwg

    with jaxwg.debug_key_reuse(False):
        pass
    for turn_on in (lambda: config.update("jax_debug_key_reuse", True),
                    lambda: jaxwg.debug_key_reuse(True)):
        with pytest.raises(jaxwg.errors.NotImplementedInJaxwg, match="KeyReuseError"):
            turn_on()
