# jax-reduce tracker: reproduces ValueError: conv_general_dilated lhs feature dimension size divided by feature_group_count must equal the rhs input feature dimension size, but N // N != N @ jax._src.lax.convolution._conv_general_dilated_shape_rule [jax.lax.conv_general_dilated -> conv_general_dilated(float:4, float:4)] (verified in a fresh interpreter)
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


class NodeStates:
    __module__ = 'flax.nnx.extract'

    def __init__(self, aux, children):
        self.aux = aux
        self.children = children


def flatten_NodeStates(node):
    return (node.children, node.aux)


def unflatten_NodeStates(aux, children):
    return NodeStates(aux, tuple(children))


jax.tree_util.register_pytree_node(NodeStates, flatten_NodeStates, unflatten_NodeStates)


class State:
    __module__ = 'flax.nnx.statelib'

    def __init__(self, aux, children):
        self.aux = aux
        self.children = children


def flatten_State(node):
    return (node.children, node.aux)


def unflatten_State(aux, children):
    return State(aux, tuple(children))


jax.tree_util.register_pytree_node(State, flatten_State, unflatten_State)


class Param:
    __module__ = 'flax.nnx.variablelib'

    def __init__(self, aux, children):
        self.aux = aux
        self.children = children


def flatten_Param(node):
    return (node.children, node.aux)


def unflatten_Param(aux, children):
    return Param(aux, tuple(children))


jax.tree_util.register_pytree_node(Param, flatten_Param, unflatten_Param)

c_13 = np.zeros((16,), dtype=np.float32)
c_14 = np.ones((3, 3, 3, 16), dtype=np.float32)
c_15 = np.zeros((32,), dtype=np.float32)
c_16 = np.ones((3, 3, 16, 32), dtype=np.float32)
c_17 = np.array(0, dtype=np.uint32)
c_18 = jax.random.wrap_key_data(np.array([507451445, 1853169794], dtype=np.uint32), impl='threefry2x32')
c_19 = np.zeros((10,), dtype=np.float32)
c_20 = np.ones((32, 10), dtype=np.float32)
c_21 = np.zeros((16,), dtype=np.float32)
c_22 = np.zeros((3, 3, 3, 16), dtype=np.float32)
c_23 = np.zeros((32,), dtype=np.float32)
c_24 = np.zeros((3, 3, 16, 32), dtype=np.float32)
c_25 = np.zeros((10,), dtype=np.float32)
c_26 = np.zeros((32, 10), dtype=np.float32)
c_27 = np.array(0, dtype=np.int32)
c_28 = np.array(0, dtype=np.uint32)
c_29 = np.array(0, dtype=np.int32)
c_30 = np.array(0.0, dtype=np.float32)
c_31 = np.array(0, dtype=np.int32)
c_32 = np.array(0.0, dtype=np.float32)
c_33 = np.ones((8, 3, 32, 32), dtype=np.float32)
c_34 = np.array([8, 8, 9, 6, 9, 0, 5, 9], dtype=np.int32)


def train_step_12(model, optimizer, metrics, x_7, x_8):
    x_1 = model.children[1][0][0]
    x_2 = model.children[1][0][1]
    x_3 = model.children[1][0][2]
    x_4 = model.children[1][0][3]
    x_5 = model.children[1][0][6]
    x_6 = model.children[1][0][7]

    def loss_fn_11(model):
        x_9 = model.children[1][0].children[0]['bias'].children[0]
        x_10 = model.children[1][0].children[0]['kernel'].children[0]
        jnp.asarray(x_7)
        jnp.asarray(x_10)
        jnp.asarray(x_9)
        jnp.asarray(x_7, jnp.dtype('float32'))
        jnp.asarray(x_10, jnp.dtype('float32'))
        jnp.asarray(x_9, jnp.dtype('float32'))
        lax.conv_general_dilated(x_7, x_10, (1, 1), 'SAME', lhs_dilation=(1, 1), rhs_dilation=(1, 1), dimension_numbers=jax.lax.ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2)), feature_group_count=1, precision=None, out_sharding=None)

    jax.value_and_grad(loss_fn_11, argnums=0, has_aux=True, holomorphic=False, allow_int=False)(NodeStates((None,), ((), (State(('conv1', 'conv2', 'head'), ({'bias': Param((('eager_sharding', True), ('hijax', False), ('ref', False)), (x_1,)), 'kernel': Param((('eager_sharding', True), ('hijax', False), ('ref', False)), (x_2,))}, {'bias': Param((('eager_sharding', True), ('hijax', False), ('ref', False)), (x_3,)), 'kernel': Param((('eager_sharding', True), ('hijax', False), ('ref', False)), (x_4,))}, {'bias': Param((('eager_sharding', True), ('hijax', False), ('ref', False)), (x_5,)), 'kernel': Param((('eager_sharding', True), ('hijax', False), ('ref', False)), (x_6,))})),))))


jax.jit(train_step_12, donate_argnums=None, donate_argnames=None, keep_unused=False, inline=False)(NodeStates((None,), ((), ([c_13, c_14, c_15, c_16, c_17, c_18, c_19, c_20],))), NodeStates((None,), ((), ([c_21, c_22, c_23, c_24, c_25, c_26, c_27, c_28],))), NodeStates((None,), ((), ([c_29, c_30, c_31, c_32],))), c_33, c_34)
