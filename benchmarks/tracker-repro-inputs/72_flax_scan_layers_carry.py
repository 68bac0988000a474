# jax-reduce tracker: reproduces TypeError: scan body function carry input and carry output must have equal types, but they differ: @ jax._src.lax.control_flow.loops._check_carry_type [jax.lax.scan()] (verified in a fresh interpreter)
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


class LazyRng:
    __module__ = 'flax.core.scope'

    def __init__(self, aux, children):
        self.aux = aux
        self.children = children


def flatten_LazyRng(node):
    return (node.children, node.aux)


def unflatten_LazyRng(aux, children):
    return LazyRng(aux, tuple(children))


jax.tree_util.register_pytree_node(LazyRng, flatten_LazyRng, unflatten_LazyRng)

c_36 = np.array([[0.22270359098911285, 0.7831026315689087, 0.27873361110687256, -0.15015923976898193, 0.08351094275712967, -0.17325499653816223, 0.6489437222480774, 0.21325470507144928, 0.3349664807319641, 0.0018141554901376367, -0.2170296013355255, 0.370542973279953, 0.030863983556628227, -0.0550992488861084, 0.10645728558301926, -0.2993243932723999]], dtype=np.float32)
c_37 = np.array([[1797259609, 2579123966], [928981903, 3453687069], [4146024105, 2718843009], [2467461003, 3840466878]], dtype=np.uint32)


def body_fn_35(c, xs):
    x_1 = c[1]
    x_2 = xs[1][0][0]['params'].children[0]
    x_1.astype(jnp.dtype('float32'))
    v_3 = lax.square(x_1)
    v_4 = x_1.mean((1,), where=None)
    v_5 = v_3.mean((1,), where=None)
    v_6 = lax.square(v_4)
    v_7 = v_5 - v_6
    v_8 = jnp.maximum(0.0, v_7)
    v_9 = jnp.expand_dims(v_4, (1,))
    v_10 = jnp.expand_dims(v_8, (1,))
    v_11 = x_1 - v_9
    v_12 = v_10 + 1e-06
    v_13 = lax.rsqrt(v_12)
    v_14 = jnp.uint32(845042024)
    v_15 = jax.random.fold_in(x_2, v_14)
    v_16 = jax.nn.initializers.ones(v_15, [16], jnp.float32)
    v_17 = v_16.reshape([1, 16])
    v_18 = v_13 * v_17
    v_19 = v_11 * v_18
    v_20 = jnp.uint32(2768818193)
    v_21 = jax.random.fold_in(x_2, v_20)
    v_22 = jax.nn.initializers.zeros(v_21, [16], jnp.float32)
    v_23 = v_22.reshape([1, 16])
    v_24 = v_19 + v_23
    jnp.asarray(x_1)
    jnp.asarray(v_17)
    jnp.asarray(v_23)
    jnp.asarray(v_24, jnp.dtype('float32'))
    v_25 = jnp.uint32(236398643)
    v_26 = jax.random.fold_in(x_2, v_25)
    v_27 = jax.nn.initializers.lecun_normal()(v_26, (16, 32), jnp.float32)
    v_28 = jnp.uint32(722408802)
    v_29 = jax.random.fold_in(x_2, v_28)
    v_30 = jax.nn.initializers.zeros(v_29, (32,), jnp.float32)
    jnp.asarray(v_24)
    jnp.asarray(v_27)
    jnp.asarray(v_30)
    jnp.asarray(v_24, jnp.dtype('float32'))
    jnp.asarray(v_27, jnp.dtype('float32'))
    jnp.asarray(v_30, jnp.dtype('float32'))
    v_31 = lax.dot_general(v_24, v_27, (((1,), (0,)), ((), ())), precision=None)
    v_32 = jnp.reshape(v_30, (1, -1))
    v_33 = v_31 + v_32
    v_34 = jnp.tanh(v_33)
    return ((({},), v_34), (None, (({'params': {'Dense_0': {'bias': v_30, 'kernel': v_27}, 'LayerNorm_0': {'bias': v_22, 'scale': v_16}}},),)))


lax.scan(body_fn_35, (({},), c_36), ((({},),), (({'params': LazyRng((('layers',),), (c_37,))},),), (None,)), 4, False, 1, False)
