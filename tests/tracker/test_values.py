"""Values as the tracker records and writes them: typed PRNG keys (the emitted expression, run, gives back
an equal key or dtype) and user pytree nodes (kept with their type and aux data)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import libcst as cst
import numpy as np
import pytest

from tracker import nodes as N
from tracker import values as V


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


@pytest.mark.parametrize("value", [np.zeros((0, 0, 3), np.float32), jnp.zeros((2, 0)), np.array([], np.int8)])
def test_an_empty_array_keeps_its_shape_and_dtype(value):
    # As a nested-list literal, every empty array would come back with shape (0,).
    rebuilt = _evaluated(N.array(value, threshold=128, saved=None))
    assert rebuilt.shape == value.shape and rebuilt.dtype == value.dtype


class Pair:
    def __init__(self, a, b, tag):
        self.a, self.b, self.tag = a, b, tag


jax.tree_util.register_pytree_node(Pair, lambda p: ((p.a, p.b), p.tag), lambda tag, c: Pair(*c, tag))


def test_registered_node_kept_with_its_type_and_aux():
    x = jnp.ones(2)
    node = V.normalize(Pair(x, {"w": x}, ("w", 2)))
    assert isinstance(node, V.Node) and node.type is Pair and node.aux == ("w", 2)
    assert node.children[0] is x and node.children[1] == {"w": x}
    assert V.leaves(node) == [x, x]
    # Aux data a repro cannot write (a function, as in a flax struct): the children, as a tuple.
    assert V.normalize(Pair(x, x, jnp.sum)) == (x, x)


def test_stand_in_class_has_the_original_structure():
    x = jnp.ones(2)
    original = Pair(x, x, ("w", 2))
    scope = {"jax": jax}
    exec(cst.Module(N.pytree_class("Pair", Pair)).code, scope)
    stand_in = scope["Pair"](("w", 2), (x, x))
    assert str(jax.tree_util.tree_structure(stand_in)) == str(jax.tree_util.tree_structure(original))
    with pytest.raises(ValueError, match="different types"):
        jax.tree_util.tree_map(lambda a, b: a + b, stand_in, {"a": x, "b": x})
