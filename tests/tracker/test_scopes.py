"""tracker.scopes.check_scopes: the scope check every saved repro in the tracker tests goes through."""

from __future__ import annotations

import libcst as cst

from tracker.scopes import check_scopes

# The shape of the repro issue 12 reported (from fail_nested_custom_jvp before the fix): the outer
# rule passes on ``v_13``, a name bound only as a parameter of another function.
BROKEN = '''import jax
import jax.numpy as jnp


def outer_rule_8(args_1, args_2):
    custom_10 = jax.custom_jvp(outer_11)
    custom_10(v_13)


def outer_11(v_13):
    return jnp.sum(v_13)


jax.jacfwd(outer_11)(jnp.ones(3))
'''


def test_catches_a_name_bound_only_in_another_function():
    assert check_scopes(cst.parse_module(BROKEN)) == ["line 7: name 'v_13' is not bound"]


def test_catches_a_module_used_but_not_imported():
    source = "import jax\nx = np.ones(3)\njax.numpy.sum(x)\n"
    assert check_scopes(cst.parse_module(source)) == ["line 2: name 'np' is not bound"]


def test_catches_a_module_name_bound_by_an_assignment():
    source = "import jax\njnp = 1\nprint(jnp.ones(3))\n"
    assert check_scopes(cst.parse_module(source)) == ["line 3: name 'jnp' is used as a module but not imported"]


def test_accepts_closures_globals_and_builtins():
    source = '''import jax
import jax.numpy as jnp
from jax import lax

leaked_1 = None


def model_3(args_1, x_2):
    w_4 = args_1['w']
    global leaked_1

    def step_5(carry_6, x_7):
        leaked_1 = carry_6
        return carry_6 * w_4 + len(args_1), x_7

    return lax.scan(step_5, x_2, jnp.ones(3))


print(jax.jit(model_3)({'w': 2.0}, 1.0), leaked_1, isinstance(leaked_1, float), __file__)
'''
    assert check_scopes(cst.parse_module(source)) == []
