"""The debugging view: `jaxwg_debug` levels 1-4 (JAXWG_DEBUG) and `as_text(dialect="wgsl")`."""

import os
import subprocess
import sys

import pytest

import jaxwg
import jaxwg.numpy as jnp


@pytest.fixture
def debug_level():
    """`debug_level(n)` sets jaxwg_debug for the test; it is reset afterwards."""
    yield lambda n: jaxwg.config.update("jaxwg_debug", n)
    jaxwg.config.update("jaxwg_debug", 0)


def _run_eager_and_jit():
    x = jnp.arange(8.0)
    jnp.sum(jnp.exp(x) * 2).block_until_ready()
    @jaxwg.jit
    def scaled_sine(x):
        return jnp.sin(x) * 3.0

    scaled_sine(x)
    scaled_sine(x)


def test_level_0_prints_nothing(platform, capsys):
    _run_eager_and_jit()
    assert capsys.readouterr().err == ""


def test_level_1_prints_each_flush_and_program_run_with_times(platform, capsys, debug_level):
    debug_level(1)
    _run_eager_and_jit()
    err = capsys.readouterr().err
    device = jaxwg.devices()[0].name
    assert f"jaxwg: flush on {device}\n  kernel 0: float32[1] from 0 inputs, add over 8: " in err
    assert err.count(f"jaxwg: jit scaled_sine on {device}\n  kernel 0: float32[8] from 1 input: ") == 2
    assert err.count(" ms\n") == err.count("  kernel ")
    assert "lambda" not in err and "exp(" not in err  # jaxprs and expressions are levels 2, 3


def test_level_2_adds_the_jaxpr_of_each_trace(platform, capsys, debug_level):
    debug_level(2)
    _run_eager_and_jit()
    err = capsys.readouterr().err
    assert err.count("jaxwg: jit scaled_sine traced for (f32[8]):\n{ lambda ; a:f32[8]. let") == 1
    assert "b:f32[8] = sin a; c:f32[8] = mul b 3.0:f32[] in (c,) }" in err
    assert "exp(" not in err


def test_level_3_adds_kernel_expressions(platform, capsys, debug_level):
    debug_level(3)
    _run_eager_and_jit()
    err = capsys.readouterr().err
    assert "    term = (exp(cast<float32>(ridx)) * 2.0)\n    out = acc\n" in err
    assert "    out = (sin(in0[gidx]) * 3.0)\n" in err
    assert "@compute" not in err


def test_level_4_adds_shaders_on_webgpu(platform, capsys, debug_level):
    debug_level(4)
    _run_eager_and_jit()
    err = capsys.readouterr().err
    assert "    out = (sin(in0[gidx]) * 3.0)\n" in err
    assert ("    | @compute" in err) == (platform == "webgpu")  # the CPU backend has no shaders


def test_the_level_is_not_part_of_the_jit_key(platform, debug_level):
    f = jaxwg.jit(lambda x: x + 1)
    f(jnp.ones(2))
    debug_level(1)
    f(jnp.ones(2))
    assert f._cache_info()["misses"] == 1


def test_environment_variable_sets_the_level():
    code = ("import jaxwg, jaxwg.numpy as jnp; print(jaxwg.config.jaxwg_debug); "
            "jnp.exp(jnp.arange(3.0)).block_until_ready()")
    env = {**os.environ, "JAXWG_DEBUG": "1", "JAXWG_PLATFORMS": "cpu"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "1"
    assert out.stderr.startswith("jaxwg: flush on cpu:0\n  kernel 0: float32[3] from 0 inputs")


def test_as_text_wgsl(platform):
    lowered = jaxwg.jit(lambda x: jnp.sum(jnp.sin(x) * 2.0)).lower(jnp.ones(4))
    assert lowered.as_text().startswith("{ lambda ; a:f32[4]. let")  # the default is unchanged
    with pytest.raises(ValueError, match="Unknown dialect 'hlo'"):
        lowered.as_text(dialect="hlo")
    if platform == "cpu":
        with pytest.raises(ValueError, match="needs a webgpu program; this one runs on cpu:0"):
            lowered.as_text(dialect="wgsl")
        return
    text = lowered.as_text(dialect="wgsl")
    assert text.startswith("// kernel 0: inputs [0] -> r1\n")
    assert "@compute" in text and "fn main" in text and "sin_f32(in0[" in text  # the template decides the index
