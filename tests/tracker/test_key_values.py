"""Typed PRNG keys written as values: the emitted expression, run, gives back an equal key or dtype."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import libcst as cst
import numpy as np
import pytest

from tracker import nodes as N


def _evaluated(node: cst.BaseExpression):
    return eval(cst.Module([]).code_for_node(node), {"jax": jax, "jnp": jnp, "np": np})


@pytest.mark.parametrize("impl", ["threefry2x32", "rbg"])
def test_key_dtype_written_as_an_equal_dtype(impl):
    key = jax.random.key(3, impl=impl)
    node = N.dtype(key.dtype)
    assert cst.Module([]).code_for_node(node) == f"jax.random.key(0, impl='{impl}').dtype"
    assert _evaluated(node) == key.dtype
    assert not N.is_key_dtype(np.float32) and not N.is_key_dtype("not a dtype")


def test_key_array_written_with_its_data_and_impl():
    keys = jax.random.split(jax.random.key(7), 2)
    node = N.array(keys, threshold=128, saved=None)
    rebuilt = _evaluated(node)
    assert rebuilt.dtype == keys.dtype and rebuilt.shape == (2,)
    np.testing.assert_array_equal(jax.random.key_data(rebuilt), jax.random.key_data(keys))


def test_deleted_key_array_written_as_keys_of_its_shape():
    keys = jax.random.split(jax.random.key(7), 3)
    keys.delete()  # as donation leaves it
    rebuilt = _evaluated(N.array(keys, threshold=128, saved=None))
    assert rebuilt.dtype == keys.dtype and rebuilt.shape == (3,)
